package dev.kvlab.harness.api.run;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.MatrixCell;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.Shard;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.spi.TargetProvider;
import dev.kvlab.workloads.api.ArrivalSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Shard K of N of every cell's request stream ({@code kvlab run --shard K/N --split requests}): every cell and
 * replicate runs on every host, each host sending only the requests whose position in the workload {@code i}
 * has {@code i mod N = K - 1}, at their intended times (the same seed, so the same stream), so the N hosts together
 * offer the whole stream. Only cells of a target that {@link TargetProvider#splitsRequests} (openai) can be split so (the emulated model's one engine
 * state cannot be spread over hosts), only under an open-loop arrival without a cap (a closed loop's or a cap's next
 * request waits on completions another host sees), and not in a capacity search (each host would search apart).
 * The share reaches the cell as {@link #KEY} in its config; {@code kvlab merge} adds the shards' cells back into one.
 */
public final class RequestSplit {

    /** The config key that carries a cell's share: {@code K/N}. */
    public static final String KEY = "target.request_shard";

    private RequestSplit() {}

    /**
     * {@code whole} with every run's config carrying {@code shard}'s share of its requests; the resolved matrix and
     * its cells unchanged otherwise, the hash {@link #sha256Of} the whole matrix's.
     *
     * @throws BadInputException naming the key that keeps a cell from being split by requests
     */
    public static MatrixSpec select(MatrixSpec whole, Shard shard) {
        String flag = "--shard " + shard.label() + " --split requests";
        if (whole.experiment() != null && whole.experiment().adaptive())
            throw new BadInputException(flag + ": key '" + whole.experiment().key()
                    + "': the experiment picks each run from earlier runs' results, so N"
                    + " hosts would search apart; split it by runs (--split runs)");
        Targets targets = Targets.discover();
        List<MatrixCell> cells = new ArrayList<>();
        for (MatrixCell c : whole.cells()) {
            List<CellRun> runs = new ArrayList<>();
            for (CellRun r : c.runs()) {
                TargetProvider target = targets.of(r.config(), k -> flag + ": cell " + c.id());
                if (!target.splitsRequests())
                    throw new BadInputException(flag + ": cell " + c.id() + ": key 'target.kind' is '" + target.kind()
                            + "': only cells of "
                            + String.join(", ", targets.kinds(TargetProvider::splitsRequests))
                            + " targets can be split by requests (the "
                            + target.kind() + " target's engine state cannot be split across hosts); use --split runs");
                checkArrival(r.config(), k -> flag + ": cell " + c.id());
                ObjectNode tree = r.tree().deepCopy();
                ((ObjectNode) tree.path("target")).put(KEY.substring(KEY.indexOf('.') + 1), shard.label());
                runs.add(new CellRun(
                        r.cell(), r.index(), r.factors(), r.replicate(), r.seed(), r.mode(), bind(tree, c.id()), tree));
            }
            cells.add(new MatrixCell(c.index(), c.id(), c.factors(), runs));
        }
        return new MatrixSpec(
                whole.name(),
                whole.file(),
                whole.description(),
                whole.factors(),
                whole.replicates(),
                whole.baseline(),
                cells,
                whole.inputs(),
                sha256Of(shard, whole.sha256()),
                whole.resolved(),
                whole.experiment());
    }

    /**
     * Refuses a cell whose requests are not fixed in advance: a closed loop, an open loop with a cap on requests in
     * flight, or an early stop; {@code origin} as in {@link dev.kvlab.harness.spi.TargetProvider#validate}.
     */
    public static void checkArrival(RunConfig c, Function<String, String> origin) {
        ArrivalSpec a = c.workload().arrival();
        if (a == null) return;
        if (a.closedLoop())
            throw bad(
                    origin,
                    "workload.arrival.process",
                    "a closed loop sends a user's next request when its last one completes,"
                            + " which only one host sees; a request-split cell needs an open-loop arrival (trace, poisson, gamma, constant)");
        if (a.maxConcurrency() > 0)
            throw bad(
                    origin,
                    "workload.arrival.max_concurrency",
                    "a cap on requests in flight holds over the whole stream,"
                            + " which no one host sees; drop the cap to split a cell's requests");
        if (c.measurement().earlyStop().enabled())
            throw bad(
                    origin,
                    "measurement.early_stop",
                    "each host would stop on its own share's verdict;" + " a request-split cell sends its whole share");
    }

    private static BadInputException bad(Function<String, String> origin, String key, String why) {
        String o = origin.apply(key);
        return new BadInputException((o == null ? "config" : o) + ": key '" + key + "': " + why);
    }

    /** {@code tree} (a run's config tree) without a share: the whole stream's config. */
    public static ObjectNode whole(ObjectNode tree) {
        ObjectNode t = tree.deepCopy();
        if (t.path("target").isObject()) ((ObjectNode) t.get("target")).remove(KEY.substring(KEY.indexOf('.') + 1));
        return t;
    }

    /** The hash of shard {@code shard} of the requests of a matrix whose hash is {@code matrixSha256}: its bundle's {@code matrix.sha256}. */
    public static String sha256Of(Shard shard, String matrixSha256) {
        return Shard.sha256(matrixSha256 + "\nshard " + shard.label() + " requests\n");
    }

    private static RunConfig bind(ObjectNode tree, String cell) {
        return ConfigTree.of(tree, "cell " + cell, null).bind();
    }
}
