package dev.kvlab.harness.experiments;

import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.RunListener;
import dev.kvlab.harness.api.Shard;
import dev.kvlab.harness.api.ShardSplit;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.bundle.BundleArchive;
import dev.kvlab.harness.bundle.Provenance;
import dev.kvlab.harness.experiments.api.Heartbeat;
import dev.kvlab.harness.experiments.internal.matrix.MatrixParser;
import dev.kvlab.harness.experiments.internal.matrix.MatrixRunner;
import dev.kvlab.harness.experiments.internal.matrix.ProgressReporter;
import dev.kvlab.harness.experiments.internal.matrix.ShardRecord;
import dev.kvlab.harness.report.ReportRenderer;
import dev.kvlab.harness.spi.TargetFramework;
import dev.kvlab.transport.api.TransportProfile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs a matrix into a result bundle, wired as {@code kvlab run} and {@code kvlab demo} run it: every cell through a
 * {@link CellRunner}, progress and a heartbeat on {@code err}, the report rendered into the bundle, optionally the
 * bundle archived beside it.
 */
public final class BundleRun {

    /** Seconds without a line after which the heartbeat says what the run is doing (issue 14: at least every 10 s). */
    public static final double QUIET_SECONDS = 5;

    private BundleRun() {}

    /** A line runs can start with at once (before the matrix is read), and the heartbeat that keeps them talking. */
    public static Heartbeat heartbeat(PrintWriter err, Path matrix) {
        err.println("kvlab: reading " + matrix);
        err.flush();
        Heartbeat hb = new Heartbeat(err, QUIET_SECONDS);
        hb.printed();
        hb.status("reading " + matrix);
        return hb;
    }

    /** Keeps the heartbeat's status at the matrix expansion's count. */
    private static MatrixSpec.Expansion expansion(Heartbeat hb) {
        return (done, total) -> hb.status(
                String.format(Locale.ROOT, "expanding and validating the matrix: %,d of %,d cells", done, total));
    }

    /**
     * Exit 2 unless {@code out} can hold bundles: an existing directory, or one that can be created (its nearest
     * existing ancestor is a writable directory). Checked before anything runs.
     */
    public static void checkOut(Path out) {
        if (Files.exists(out) && !Files.isDirectory(out))
            throw new BadInputException("--out " + out
                    + ": is not a directory (--out is the directory in which the bundle directory is created)");
        Path p = out.toAbsolutePath().normalize();
        while (p != null && !Files.exists(p)) p = p.getParent();
        if (p == null) return;
        if (!Files.isDirectory(p)) throw new BadInputException("--out " + out + ": " + p + " is not a directory");
        if (!Files.isWritable(p)) throw new BadInputException("--out " + out + ": " + p + " is not writable");
    }

    /** Sim runs of one step at once by default: one per core. */
    public static int defaultJobs() {
        return Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    /**
     * Runs {@code matrix} into {@code out} ({@code resume}: continuing its interrupted run there) with {@code jobs} sim
     * runs at once (the results do not depend on it); {@code extra} listeners come after the progress reporter;
     * {@code archive} also writes {@code <bundle>.tar.gz}. Returns the bundle (with {@code resume} and nothing left to run, the
     * finished one).
     */
    public static Path run(
            MatrixSpec matrix,
            Path out,
            boolean resume,
            boolean archive,
            List<RunListener> extra,
            int jobs,
            Provenance prov,
            PrintWriter err,
            Heartbeat hb)
            throws IOException {
        checkOut(out);
        dev.kvlab.harness.experiments.internal.matrix.BundleProjection.check(
                matrix, dev.kvlab.harness.experiments.internal.matrix.MatrixExperiment.of(matrix), out, null);
        List<RunListener> listeners = new ArrayList<>();
        hb.status("preparing the run (checking traces, writing the plan)");
        listeners.add(new ProgressReporter(err, ProgressReporter.stderrIsTerminal(), hb));
        listeners.addAll(extra);
        ReportRenderer renderer = new ReportRenderer();
        MatrixRunner runner = new MatrixRunner(
                new CellRunner()::run, listeners, prov, Clock.systemUTC(), renderer::render, err, jobs);
        MatrixRunner.Outcome o = runner.run(matrix, out, resume);
        err.println("kvlab: bundle " + o.bundle() + ": "
                + dev.kvlab.harness.bundle.BundleFootprint.measure(o.bundle()).text());
        if (archive) {
            Path tgz = o.bundle().resolveSibling(o.bundle().getFileName() + ".tar.gz");
            hb.status("archiving " + tgz);
            Path sum = BundleArchive.createWithChecksum(o.bundle(), tgz);
            err.println("kvlab: archived to " + tgz + " (SHA-256 in " + sum.getFileName() + ")");
        }
        err.flush();
        return o.bundle();
    }

    /**
     * Parses {@code matrix} with {@code sets} ({@code mode}, when not null, overrides every cell's), the heartbeat's status
     * following the expansion.
     */
    public static MatrixSpec load(Path matrix, List<String> sets, Mode mode, Heartbeat hb) {
        return MatrixParser.load(matrix, sets, mode, expansion(hb));
    }

    /**
     * The listener that records in a shard's manifest which shard of {@code whole} (the unsharded matrix) it is and how the
     * shards split it, for {@code kvlab merge}.
     */
    public static RunListener shardRecord(Shard shard, ShardSplit split, MatrixSpec whole) {
        return new ShardRecord(shard, split, whole);
    }

    /** The demo's matrix: {@code ablations/default.yaml} of the kvlab installation ({@code -Dkvlab.home}), else of the working directory. */
    public static Path demoMatrix() {
        List<Path> tried = new ArrayList<>();
        String home = System.getProperty("kvlab.home");
        if (home != null) tried.add(Path.of(home, "ablations", "default.yaml"));
        tried.add(Path.of("ablations", "default.yaml"));
        for (Path p : tried) if (Files.isRegularFile(p)) return p;
        throw new BadInputException(
                "kvlab demo: no ablations/default.yaml (looked at " + tried + "); run it from the kvlab checkout");
    }

    /**
     * The demo's real-engine matrix ({@code real-kv-demo.yaml} beside {@code demoMatrix}) on its small model with random
     * weights, synthesized into {@code out/models/} unless it is there already (a deterministic file: same bytes every time).
     */
    public static MatrixSpec realEngineDemoMatrix(Path demoMatrix, Path out, Heartbeat hb) throws IOException {
        Path model = out.resolve("models").resolve("real-kv-demo-l4-h256.gguf").toAbsolutePath();
        if (!Files.isRegularFile(model)) {
            hb.status("synthesizing the demo's model (random weights)");
            Files.createDirectories(model.getParent());
            Gguf.synth(new SynthSpec(4, 256, 8, 2, 688, SynthSpec.DEFAULT_VOCAB, WeightType.F16, 7, 4096), model);
        }
        return MatrixParser.load(
                demoMatrix.resolveSibling("real-kv-demo.yaml"), List.of("target.model=" + model), null, expansion(hb));
    }

    /**
     * {@code matrix} with {@code sets}, as {@code kvlab demo} runs it: unless {@code sets} name a {@code transport_profile},
     * with the {@link #loopbackProfile} (measured now, or with {@code resume} the interrupted run's) as one.
     */
    public static MatrixSpec withLoopbackProfile(
            Path matrix,
            List<String> sets,
            Path out,
            boolean resume,
            Map<String, String> machine,
            Heartbeat hb,
            Consumer<String> progress)
            throws IOException, InterruptedException {
        MatrixSpec ms = MatrixParser.load(matrix, sets, null, expansion(hb));
        if (sets.stream().anyMatch(x -> x.startsWith("transport_profile="))) return ms;
        Path profile = loopbackProfile(ms, out, resume, machine, progress);
        if (profile == null) return ms;
        List<String> withProfile = new ArrayList<>(sets);
        withProfile.add("transport_profile=" + profile);
        return MatrixParser.load(matrix, withProfile, null, expansion(hb));
    }

    /**
     * The loopback profile a matrix's cells run on (sim cells: their data path; live cells: auto's estimate), as
     * {@code kvlab demo} gives it: measured now through the embedded store as the first live cell will use it, written to
     * {@code out/calibration/} (said on {@code progress}), labelled with {@code machine}; with {@code resume}, the one the
     * interrupted run wrote there. Null when the matrix has no live cell with a transport name.
     */
    public static Path loopbackProfile(
            MatrixSpec ms, Path out, boolean resume, Map<String, String> machine, Consumer<String> progress)
            throws IOException, InterruptedException {
        var live =
                ms.runs().stream().filter(r -> r.config().mode() == Mode.LIVE).findFirst();
        if (live.isEmpty()) return null;
        Path dir = out.resolve("calibration");
        if (resume && Files.isDirectory(dir)) {
            try (var s = Files.list(dir)) {
                var last = s.filter(p -> p.getFileName().toString().endsWith(".yaml"))
                        .sorted()
                        .reduce((a, b) -> b);
                if (last.isPresent()) return last.get().toAbsolutePath();
            }
        }
        TransportProfile profile =
                TargetFramework.get().loopbackProfile(live.get().config(), machine);
        if (profile == null) return null;
        Files.createDirectories(dir);
        Path file = dir.resolve("loopback-" + profile.created().replace(":", "") + ".yaml")
                .toAbsolutePath();
        profile.write(file);
        progress.accept("calibrated the loopback data path: "
                + profile.models().values().iterator().next().source() + " -> " + file);
        return file;
    }
}
