package dev.kvlab.harness.api.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.config.ConfigKeys;
import dev.kvlab.harness.api.config.EarlyStopConfig;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.workloads.api.ArrivalSpec;
import java.util.function.Function;

/**
 * A cell's config resolved once ({@link ConfigTree#bind()}): the bound {@link RunConfig} and the tree it was bound from
 * (what the manifest records and {@code kvlab verify --rerun} binds again). A capacity probe, an operating point and a
 * replicate are derived from it by withers that change both alike — the typed config by its records' withers, the tree
 * at the same key — with no text written and parsed again and no rebinding; {@link #checked()} validates the result
 * as its target would any config.
 *
 * @param config the bound config
 * @param tree   the resolved tree (owned: a wither copies it before changing it)
 * @param name   what the config is called in errors ({@code c01-cold_combined/r0 at workload.arrival.rate=4})
 */
public record ResolvedConfig(RunConfig config, ObjectNode tree, String name) {

    /** The seed ({@code seed + k} for replicate k). */
    public static final String SEED = ConfigKeys.SEED;
    /** The workload's length in passes (a capacity probe's extension). */
    public static final String PASSES = ConfigKeys.WORKLOAD + ".passes";
    /** A live probe's early stop. */
    public static final String EARLY_STOP = ConfigKeys.MEASUREMENT + ".early_stop";
    /** The load keys a capacity search varies. */
    public static final String RATE = "workload.arrival.rate",
            SPEEDUP = "workload.arrival.speedup",
            USERS = "workload.arrival.users",
            MAX_CONCURRENCY = "workload.arrival.max_concurrency";

    /** This config under another name in errors. */
    public ResolvedConfig named(String n) {
        return new ResolvedConfig(config, tree, n);
    }

    /** With {@link #SEED} {@code seed}. */
    public ResolvedConfig withSeed(long seed) {
        return new ResolvedConfig(config.withSeed(seed), set(SEED, JsonNodeFactory.instance.numberNode(seed)), name);
    }

    /**
     * With load key {@code knob} ({@link #RATE}, {@link #SPEEDUP}, {@link #USERS}, {@link #MAX_CONCURRENCY}) at {@code load},
     * recorded in the tree as a whole number when {@code whole} (else as it is). A fractional load of a whole-number key is
     * refused, as the binder refuses it.
     */
    public ResolvedConfig withLoad(String knob, double load, boolean whole) {
        ArrivalSpec a = config.workload().arrival();
        double v = whole ? (long) load : load;
        ArrivalSpec b = switch (knob) {
            case RATE ->
                new ArrivalSpec(
                        a.process(),
                        v,
                        a.burstiness(),
                        a.speedup(),
                        a.users(),
                        a.thinkMs(),
                        a.maxConcurrency(),
                        a.spread());
            case SPEEDUP ->
                new ArrivalSpec(
                        a.process(),
                        a.rate(),
                        a.burstiness(),
                        v,
                        a.users(),
                        a.thinkMs(),
                        a.maxConcurrency(),
                        a.spread());
            case USERS ->
                new ArrivalSpec(
                        a.process(),
                        a.rate(),
                        a.burstiness(),
                        a.speedup(),
                        wholeInt(knob, v),
                        a.thinkMs(),
                        a.maxConcurrency(),
                        a.spread());
            case MAX_CONCURRENCY ->
                new ArrivalSpec(
                        a.process(),
                        a.rate(),
                        a.burstiness(),
                        a.speedup(),
                        a.users(),
                        a.thinkMs(),
                        wholeInt(knob, v),
                        a.spread());
            default -> throw new IllegalArgumentException("not a load key: " + knob);
        };
        JsonNode n =
                whole ? JsonNodeFactory.instance.numberNode((long) load) : JsonNodeFactory.instance.numberNode(load);
        return new ResolvedConfig(config.withWorkload(config.workload().withArrival(b)), set(knob, n), name);
    }

    /** With {@link #PASSES} {@code passes}. */
    public ResolvedConfig withPasses(int passes) {
        return new ResolvedConfig(
                config.withWorkload(config.workload().withPasses(passes)),
                set(PASSES, JsonNodeFactory.instance.numberNode(passes)),
                name);
    }

    /** With {@link #EARLY_STOP} at {@code target} attainment, first look after {@code minRequests} and {@code minDuration}. */
    public ResolvedConfig withEarlyStop(double target, long minRequests, String minDuration) {
        ObjectNode es = JsonNodeFactory.instance.objectNode();
        es.put("target", target);
        es.put("min_requests", minRequests);
        es.put("min_duration", minDuration);
        RunConfig c = config.withMeasurement(
                config.measurement().withEarlyStop(new EarlyStopConfig(target, minRequests, minDuration)));
        return new ResolvedConfig(c, set(EARLY_STOP, es), name);
    }

    /** The config, validated by its target as {@link ConfigTree#bind()} validates one ({@link BadInputException} naming {@link #name}). */
    public RunConfig checked() {
        Function<String, String> origin = k -> name;
        Targets.discover().of(config, origin).validate(config, origin);
        return config;
    }

    private int wholeInt(String knob, double v) {
        if (v != Math.rint(v) || v < Integer.MIN_VALUE || v > Integer.MAX_VALUE)
            throw new BadInputException(
                    name + ": key '" + knob + "': " + v + " is not a whole number within int range");
        return (int) v;
    }

    /** A copy of the tree with dotted {@code key} at {@code value} (sections made where missing). */
    private ObjectNode set(String key, JsonNode value) {
        return setDotted(tree.deepCopy(), key, value);
    }

    /**
     * Sets dotted {@code key} of {@code tree} to {@code value} in place, making the sections it lacks (a value where a
     * section belongs is replaced by one), and returns {@code tree}: a resolved tree changed without a {@link ConfigTree}'s
     * origins and checks (a derived run's tree here, a probe's {@code config_set} in the manifest).
     */
    public static ObjectNode setDotted(ObjectNode tree, String key, JsonNode value) {
        String[] path = key.split("\\.");
        ObjectNode at = tree;
        for (int i = 0; i < path.length - 1; i++)
            at = at.get(path[i]) instanceof ObjectNode o ? o : at.putObject(path[i]);
        at.set(path[path.length - 1], value);
        return tree;
    }
}
