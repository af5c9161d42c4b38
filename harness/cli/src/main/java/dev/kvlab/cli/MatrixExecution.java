package dev.kvlab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.BundleRun;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.RunListener;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.internal.bundle.BundleJson;
import dev.kvlab.harness.internal.bundle.CapacityFile;
import dev.kvlab.harness.internal.bundle.CellFiles;
import dev.kvlab.harness.internal.bundle.PartialBundle;
import dev.kvlab.harness.internal.bundle.Provenance;
import dev.kvlab.harness.internal.matrix.Heartbeat;
import dev.kvlab.harness.internal.matrix.MatrixRunner;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;

/** What {@code kvlab run} and {@code kvlab demo} share: run a matrix into a bundle and print it. */
final class MatrixExecution {

    private MatrixExecution() {}

    static Heartbeat heartbeat(CommandSpec spec, Path matrix) {
        return BundleRun.heartbeat(spec.commandLine().getErr(), matrix);
    }

    static MatrixSpec.Expansion expansion(Heartbeat hb) {
        return BundleRun.expansion(hb);
    }

    /** {@link #run} with sim runs on every core. */
    static MatrixRunner.Outcome run(CommandSpec spec, MatrixSpec matrix, Path out, boolean resume, boolean archive,
                                    List<RunListener> extra, Heartbeat hb) throws IOException {
        return run(spec, matrix, out, resume, archive, extra, BundleRun.defaultJobs(), hb);
    }

    /** As {@link BundleRun#run}, with the provenance of this command line and its error stream. */
    static MatrixRunner.Outcome run(CommandSpec spec, MatrixSpec matrix, Path out, boolean resume, boolean archive,
                                    List<RunListener> extra, int jobs, Heartbeat hb) throws IOException {
        BundleRun.checkOut(out);
        List<String> args = spec.root().commandLine().getParseResult() == null ? List.of(spec.name())
                : spec.root().commandLine().getParseResult().originalArgs();
        Provenance prov = Provenance.capture(KvlabVersion.version(), args);
        return BundleRun.run(matrix, out, resume, archive, extra, jobs, prov, spec.commandLine().getErr(), hb);
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
