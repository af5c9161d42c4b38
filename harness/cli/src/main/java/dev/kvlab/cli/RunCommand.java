package dev.kvlab.cli;

import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.RunListener;
import dev.kvlab.harness.api.Shard;
import dev.kvlab.harness.api.ShardSplit;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.run.RequestSplit;
import dev.kvlab.harness.experiments.BundleRun;
import dev.kvlab.harness.experiments.api.Heartbeat;
import dev.kvlab.harness.metrics.InfluxPublisher;
import dev.kvlab.harness.metrics.InfluxRunListener;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code kvlab run}: runs a matrix (or a plain run config: a one-cell matrix) cell by cell into a result bundle
 * and prints the bundle path last. With {@code --json}, stdout is one JSON object (for a single cell × replicate
 * the cell's own summary, {@code CellResult.json()}; for a matrix {@code summary.json} plus {@code bundle}) and
 * the bundle path goes to stderr.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Runs an ablation matrix (or one run config) on the sim or live clock into a result bundle: "
                    + "manifest.json, summary.csv/json with 95%% CIs across replicates, per-cell HdrHistogram interval logs, "
                    + "requests.csv, report.html. Prints the bundle path last.",
            "Matrix keys: factors (config key -> levels), exclude, replicates, baseline, name, capacity (search every cell for the highest load within the SLO: capacity.json) (docs/bundle-format.md)."
        })
public final class RunCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(
            index = "0",
            paramLabel = "MATRIX.yaml",
            description = "a matrix or a run config (YAML); every config key defaults (kvlab's defaults.yaml)")
    Path matrix;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            defaultValue = "results/runs",
            description = "where the bundle directory is created (default: ${DEFAULT-VALUE})")
    Path out;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description =
                    "override a config key by its dotted path (repeatable), e.g. --set slo.ttft_ms=2000; on a factor's key it pins that factor")
    List<String> sets = new ArrayList<>();

    @Option(names = "--mode", paramLabel = "sim|live", description = "override every cell's mode")
    String mode;

    @Option(
            names = "--resume",
            description = "continue the interrupted run of this matrix in --out from its last finished cell")
    boolean resume;

    @Option(
            names = "--shard",
            paramLabel = "K/N",
            description =
                    "run only shard K of N: runs (cells x replicates, in matrix order) dealt round-robin; the shard bundle is merged with the others by kvlab merge")
    String shard;

    @Option(
            names = "--split",
            paramLabel = "runs|requests",
            description =
                    "with --shard: runs (default) deals whole runs to shards; requests has every shard run every cell of an openai target,"
                            + " sending every N-th request of its stream at its intended time, so N hosts offer one cell's load together (kvlab merge adds them)")
    String split;

    @Option(names = "--archive", description = "also write the bundle as <bundle>.tar.gz beside it")
    boolean archive;

    @Option(names = "--json", description = "print one JSON object on stdout (the bundle path goes to stderr)")
    boolean json;

    @Option(
            names = "--jobs",
            paramLabel = "N",
            description =
                    "sim cell runs executed at once (default: one per core); results do not depend on it, live runs never overlap")
    Integer jobs;

    @Mixin
    InfluxOptions influx; // issue 7: --influx URL --influx-db DB | --influx-org ORG --influx-bucket BUCKET

    @Override
    public Integer call() throws Exception {
        BundleRun.checkOut(out);
        Mode m = parseMode(spec, mode);
        Shard sh = null;
        ShardSplit how = ShardSplit.RUNS;
        try {
            if (shard != null) sh = Shard.parse(shard);
            if (split != null) how = ShardSplit.parse(split);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (split != null && sh == null)
            throw new ParameterException(spec.commandLine(), "--split: needs --shard K/N (what the shards split)");
        Path bundle;
        MatrixSpec ms;
        try (Heartbeat hb = MatrixExecution.heartbeat(spec, matrix)) {
            MatrixSpec whole = BundleRun.load(matrix, sets, m, hb);
            ms = sh == null ? whole : how == ShardSplit.REQUESTS ? RequestSplit.select(whole, sh) : sh.select(whole);
            influx.target(System::getenv); // bad --influx options: exit 2 before anything runs
            try (InfluxPublisher pub = influx.open(System.err)) {
                if (jobs != null && jobs < 1)
                    throw new ParameterException(spec.commandLine(), "--jobs: must be >= 1, got " + jobs);
                List<RunListener> extra = new ArrayList<>(listeners(pub));
                if (sh != null) extra.add(BundleRun.shardRecord(sh, how, whole));
                bundle = MatrixExecution.run(
                        spec, ms, out, resume, archive, extra, jobs == null ? BundleRun.defaultJobs() : jobs, hb);
            }
        }
        return MatrixExecution.print(spec, ms, bundle, json);
    }

    /** Listeners besides the progress reporter: the InfluxDB publisher's when {@code --influx} is given. */
    static List<RunListener> listeners(InfluxPublisher pub) {
        return pub == null ? List.of() : List.of(new InfluxRunListener(pub));
    }

    static Mode parseMode(CommandSpec spec, String mode) {
        if (mode == null) return null;
        try {
            return Mode.parse(mode);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--mode: " + e.getMessage());
        }
    }
}
