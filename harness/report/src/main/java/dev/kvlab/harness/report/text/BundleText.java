package dev.kvlab.harness.report.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.bundle.BundleJson;
import dev.kvlab.harness.bundle.CapacityFile;
import dev.kvlab.harness.bundle.CellFiles;
import dev.kvlab.harness.bundle.PartialBundle;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * A finished bundle as {@code kvlab run} prints it: one run's description and summary, else the capacity table when
 * the matrix searched a capacity, else a row per run; or, as JSON, the run's summary or the bundle's summary with its
 * capacity. Reads only the bundle's files.
 */
public final class BundleText {

    private BundleText() {}

    /** The bundle's {@code summary.json}. */
    public static JsonNode summary(Path bundle) throws IOException {
        return BundleJson.read(bundle.resolve(PartialBundle.SUMMARY_JSON));
    }

    /** One JSON object: {@code single}'s summary when the matrix is that one run (non-null), else the summary with capacity and path. */
    public static String json(Path bundle, CellRun single) throws IOException {
        // a single run's JSON is its cell's summary alone, no bundle path: two sim runs of one config and seed print
        // the same object (the path is on stderr)
        if (single != null)
            return BundleJson.mapper().writeValueAsString(cell(bundle, single).get("summary"));
        ObjectNode o = ((ObjectNode) summary(bundle)).deepCopy();
        CapacityFile.read(bundle).ifPresent(c -> o.set("capacity", c));
        o.put("bundle", bundle.toString());
        return BundleJson.mapper().writeValueAsString(o);
    }

    /** Prints the bundle for a terminal: {@code single}'s description and summary (non-null), the capacity table, or a row per run. */
    public static void print(PrintWriter out, Path bundle, CellRun single) throws IOException {
        if (single != null) {
            JsonNode cell = cell(bundle, single);
            cell.path("describe")
                    .fields()
                    .forEachRemaining(e -> out.printf(
                            Locale.ROOT, "%-24s %s%n", e.getKey(), e.getValue().asText()));
            out.println();
            cell.path("summary")
                    .fields()
                    .forEachRemaining(e -> out.printf(Locale.ROOT, "%-24s %s%n", e.getKey(), human(e.getValue())));
            return;
        }
        Optional<JsonNode> capacity = CapacityFile.read(bundle);
        if (capacity.isPresent()) CapacityText.print(out, capacity.get());
        else table(out, summary(bundle));
    }

    /** Whether some cell of {@code summary} completed no request but failed some: the run is useless (exit 1). */
    public static boolean useless(JsonNode summary) {
        for (JsonNode r : summary.path("rows"))
            if (r.path(Columns.COMPLETED.name()).asLong() == 0
                    && r.path(Columns.FAILED.name()).asLong() > 0) return true;
        return false;
    }

    private static JsonNode cell(Path bundle, CellRun r) throws IOException {
        return dev.kvlab.harness.bundle.RunFiles.cellJson(CellFiles.dir(bundle, r.cell(), r.replicate()));
    }

    private static String human(JsonNode v) {
        if (v.isNull()) return "-";
        if (v.isFloatingPointNumber()) return String.format(Locale.ROOT, "%.4f", v.asDouble());
        return v.asText();
    }

    private static void table(PrintWriter out, JsonNode summary) {
        String[][] cols = {
            {"cell", "cell"},
            {"replicate", "r"},
            {Columns.MODE.name(), "mode"},
            {Columns.COMPLETED.name(), "done"},
            {Columns.FAILED.name(), "failed"},
            {Columns.TTFT_P50.name(), "ttft p50"},
            {Columns.TTFT_P99.name(), "ttft p99"},
            {Columns.ITL_P99.name(), "itl p99"},
            {Columns.GOODPUT_RPS.name(), "goodput/s"},
            {Columns.SLO_ATTAINMENT.name(), "slo"},
            {Columns.LOCAL_HIT_RATIO.name(), "local hit"},
            {Columns.REMOTE_HIT_RATIO.name(), "remote hit"},
            {Columns.FETCHED_BYTES.name(), "fetched B"},
            {Columns.WRONG_HITS_USED.name(), "wrong"}
        };
        int w = 8;
        for (JsonNode r : summary.path("rows"))
            w = Math.max(w, r.path("cell").asText().length());
        StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "%-" + w + "s", "cell"));
        for (int i = 1; i < cols.length; i++) h.append(String.format(Locale.ROOT, " %10s", cols[i][1]));
        out.println(h);
        for (JsonNode r : summary.path("rows")) {
            StringBuilder sb = new StringBuilder(
                    String.format(Locale.ROOT, "%-" + w + "s", r.path("cell").asText()));
            for (int i = 1; i < cols.length; i++) {
                JsonNode v = r.path(cols[i][0]);
                String s = v.isNull() || v.isMissingNode()
                        ? "-"
                        : v.isFloatingPointNumber() ? String.format(Locale.ROOT, "%.3f", v.asDouble()) : v.asText();
                sb.append(String.format(Locale.ROOT, " %10s", s));
            }
            out.println(sb);
        }
    }
}
