package dev.kvlab.harness.api.run;

import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.config.TargetKind;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.spi.TargetProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Function;
import java.util.function.Predicate;

/** The targets found by {@link ServiceLoader}: which one serves a config's cells, and the keys it does not read. */
public final class Targets {

    private final List<TargetProvider> providers = new ArrayList<>();

    private Targets(Iterable<TargetProvider> found) {
        for (TargetProvider p : found) providers.add(p);
    }

    public static Targets discover() {
        return new Targets(ServiceLoader.load(TargetProvider.class, Targets.class.getClassLoader()));
    }

    public List<String> kinds() {
        return providers.stream().map(TargetProvider::kind).toList();
    }

    /** The kinds whose provider {@code which} holds for. */
    public List<String> kinds(Predicate<TargetProvider> which) {
        return providers.stream().filter(which).map(TargetProvider::kind).toList();
    }

    /** The provider of {@code config}'s target; {@link BadInputException} naming the known kinds when none serves it. */
    public TargetProvider of(RunConfig config, Function<String, String> origin) {
        String kind = TargetKind.of(config);
        for (TargetProvider p : providers) if (p.kind().equals(kind)) return p;
        String o = origin.apply("target.kind");
        throw new BadInputException((o == null ? "config" : o) + ": key 'target.kind': unknown target '" + kind
                + "' (known: " + String.join(", ", kinds()) + ")");
    }

    /**
     * Refuses the first of {@code keys} that {@code given} says was given (it or a key below it, other than its
     * default) and {@code target} does not read: exit 2 naming the key and the target, never silently ignored.
     */
    public static void refuseUnused(
            TargetProvider target, Iterable<String> keys, Predicate<String> given, Function<String, String> origin) {
        for (String k : keys) {
            if (k.equals("target") || k.startsWith("target.") || target.uses(k) || !given.test(k)) continue;
            String o = origin.apply(k);
            throw new BadInputException(
                    (o == null ? "config" : o) + ": key '" + k + "' is not used by the " + target.kind() + " target ("
                            + target.describe() + "); remove it, or set it only for cells of a target that reads it");
        }
    }
}
