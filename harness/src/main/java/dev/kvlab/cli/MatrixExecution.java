package dev.kvlab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.CellRunner;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.RunListener;
import dev.kvlab.harness.internal.bundle.BundleArchive;
import dev.kvlab.harness.internal.bundle.BundleJson;
import dev.kvlab.harness.internal.bundle.CapacityFile;
import dev.kvlab.harness.internal.bundle.CellFiles;
import dev.kvlab.harness.internal.bundle.PartialBundle;
import dev.kvlab.harness.internal.bundle.Provenance;
import dev.kvlab.harness.internal.matrix.Heartbeat;
import dev.kvlab.harness.internal.matrix.MatrixRunner;
import dev.kvlab.harness.internal.matrix.ProgressReporter;
import dev.kvlab.harness.internal.report.ReportRenderer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;

/** What {@code kvlab run} and {@code kvlab demo} share: run a matrix into a bundle and print it. */
final class MatrixExecution {

    private MatrixExecution() {}

    /** A line runs can start with at once (before the matrix is read), and the heartbeat that keeps them talking. */
    static Heartbeat heartbeat(CommandSpec spec, Path matrix) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("kvlab: reading " + matrix);
        err.flush();
        Heartbeat hb = new Heartbeat(err, QUIET_SECONDS);
        hb.printed();
        hb.status("reading " + matrix);
        return hb;
    }

    /** Seconds without a line after which the heartbeat says what the run is doing (issue 14: at least every 10 s). */
    static final double QUIET_SECONDS = 5;

    /** Keeps the heartbeat's status at the matrix expansion's count. */
    static MatrixSpec.Expansion expansion(Heartbeat hb) {
        return (done, total) -> hb.status(String.format(Locale.ROOT, "expanding and validating the matrix: %,d of %,d cells", done, total));
    }

    /**
     * Exit 2 unless {@code out} can hold bundles: an existing directory, or one that can be created (its nearest
     * existing ancestor is a writable directory). Checked before anything runs.
     */
    static void checkOut(Path out) {
        if (java.nio.file.Files.exists(out) && !java.nio.file.Files.isDirectory(out))
            throw new dev.kvlab.harness.api.BadInputException("--out " + out + ": is not a directory (--out is the directory in which the bundle directory is created)");
        Path p = out.toAbsolutePath().normalize();
        while (p != null && !java.nio.file.Files.exists(p)) p = p.getParent();
        if (p == null) return;
        if (!java.nio.file.Files.isDirectory(p))
            throw new dev.kvlab.harness.api.BadInputException("--out " + out + ": " + p + " is not a directory");
        if (!java.nio.file.Files.isWritable(p))
            throw new dev.kvlab.harness.api.BadInputException("--out " + out + ": " + p + " is not writable");
    }

    /** Runs {@code matrix} into {@code out} with sim runs on every core; {@code extra} listeners come after the progress reporter. */
    static MatrixRunner.Outcome run(CommandSpec spec, MatrixSpec matrix, Path out, boolean resume, boolean archive,
                                    List<RunListener> extra, Heartbeat hb) throws IOException {
        return run(spec, matrix, out, resume, archive, extra, defaultJobs(), hb);
    }

    /** Sim runs of one step at once by default: one per core. */
    static int defaultJobs() {
        return Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    /** As above with {@code jobs} sim runs at once (the results do not depend on it). */
    static MatrixRunner.Outcome run(CommandSpec spec, MatrixSpec matrix, Path out, boolean resume, boolean archive,
                                    List<RunListener> extra, int jobs, Heartbeat hb) throws IOException {
        checkOut(out);
        PrintWriter err = spec.commandLine().getErr();
        List<String> args = spec.root().commandLine().getParseResult() == null ? List.of(spec.name())
                : spec.root().commandLine().getParseResult().originalArgs();
        Provenance prov = Provenance.capture(KvlabVersion.version(), args);
        List<RunListener> listeners = new ArrayList<>();
        hb.status("preparing the run (checking traces, writing the plan)");
        listeners.add(new ProgressReporter(err, ProgressReporter.stderrIsTerminal(), hb));
        listeners.addAll(extra);
        ReportRenderer renderer = new ReportRenderer();
        MatrixRunner runner = new MatrixRunner(new CellRunner()::run, listeners, prov, Clock.systemUTC(), renderer::render, err, jobs);
        MatrixRunner.Outcome o = runner.run(matrix, out, resume);
        if (archive) {
            Path tgz = o.bundle().resolveSibling(o.bundle().getFileName() + ".tar.gz");
            hb.status("archiving " + tgz);
            BundleArchive.create(o.bundle(), tgz);
            err.println("kvlab: archived to " + tgz);
        }
        err.flush();
        return o;
    }

    /**
     * Prints the outcome: {@code --json} one object on stdout (the cell's own JSON for a single run, else the
     * summary with the bundle path) and the bundle path on stderr; otherwise a table and the bundle path last.
     */
    static int print(CommandSpec spec, MatrixSpec matrix, MatrixRunner.Outcome o, boolean json) throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path bundle = o.bundle();
        JsonNode summary = BundleJson.read(bundle.resolve(PartialBundle.SUMMARY_JSON));
        if (json) {
            if (matrix.singleRun()) {
                CellRun r = matrix.runs().get(0);
                JsonNode cell = BundleJson.read(CellFiles.dir(bundle, r.cell(), r.replicate()).resolve(CellFiles.CELL_JSON));
                out.println(BundleJson.mapper().writeValueAsString(cell.get("summary")));
            } else {
                ObjectNode o2 = ((ObjectNode) summary).deepCopy();
                CapacityFile.read(bundle).ifPresent(c -> o2.set("capacity", c));
                o2.put("bundle", bundle.toString());
                out.println(BundleJson.mapper().writeValueAsString(o2));
            }
            out.flush();
            err.println(bundle);
            err.flush();
        } else {
            if (matrix.singleRun()) {
                CellRun r = matrix.runs().get(0);
                JsonNode cell = BundleJson.read(CellFiles.dir(bundle, r.cell(), r.replicate()).resolve(CellFiles.CELL_JSON));
                cell.path("describe").fields().forEachRemaining(e -> out.printf(Locale.ROOT, "%-24s %s%n", e.getKey(), e.getValue().asText()));
                out.println();
                cell.path("summary").fields().forEachRemaining(e -> out.printf(Locale.ROOT, "%-24s %s%n", e.getKey(), human(e.getValue())));
            } else {
                java.util.Optional<JsonNode> capacity = CapacityFile.read(bundle);
                if (capacity.isPresent()) CapacityTable.print(out, capacity.get());
                else table(out, summary);
            }
            out.println();
            out.println(bundle);
            out.flush();
        }
        return exitCode(summary);
    }

    private static String human(JsonNode v) {
        if (v.isNull()) return "-";
        if (v.isFloatingPointNumber()) return String.format(Locale.ROOT, "%.4f", v.asDouble());
        return v.asText();
    }

    private static void table(PrintWriter out, JsonNode summary) {
        String[][] cols = {{"cell", "cell"}, {"replicate", "r"}, {Columns.MODE.name(), "mode"}, {Columns.COMPLETED.name(), "done"},
                {Columns.FAILED.name(), "failed"},
                {Columns.TTFT_P50.name(), "ttft p50"}, {Columns.TTFT_P99.name(), "ttft p99"}, {Columns.ITL_P99.name(), "itl p99"},
                        {Columns.GOODPUT_RPS.name(), "goodput/s"},
                {Columns.SLO_ATTAINMENT.name(), "slo"}, {Columns.LOCAL_HIT_RATIO.name(), "local hit"}, {Columns.REMOTE_HIT_RATIO.name(),
                        "remote hit"},
                {Columns.FETCHED_BYTES.name(), "fetched B"}, {Columns.WRONG_HITS_USED.name(), "wrong"}};
        int w = 8;
        for (JsonNode r : summary.path("rows")) w = Math.max(w, r.path("cell").asText().length());
        StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "%-" + w + "s", "cell"));
        for (int i = 1; i < cols.length; i++) h.append(String.format(Locale.ROOT, " %10s", cols[i][1]));
        out.println(h);
        for (JsonNode r : summary.path("rows")) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-" + w + "s", r.path("cell").asText()));
            for (int i = 1; i < cols.length; i++) {
                JsonNode v = r.path(cols[i][0]);
                String s = v.isNull() || v.isMissingNode() ? "-" : v.isFloatingPointNumber() ? String.format(Locale.ROOT, "%.3f", v.asDouble()) : v.asText();
                sb.append(String.format(Locale.ROOT, " %10s", s));
            }
            out.println(sb);
        }
    }

    /** 1 when some cell completed no request but failed some (the run is useless), else 0. */
    static int exitCode(JsonNode summary) {
        for (JsonNode r : summary.path("rows")) {
            if (r.path(Columns.COMPLETED.name()).asLong() == 0 && r.path(Columns.FAILED.name()).asLong() > 0) return Kvlab.EXIT_FAILED;
        }
        return Kvlab.EXIT_OK;
    }
}
