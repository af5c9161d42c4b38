package dev.kvlab.harness.report.text;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.Columns;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A comparison of two bundles ({@code BundleComparison}'s JSON) as {@code kvlab compare} prints it: the capacities of
 * searched cells first, then B - A per cell and metric with its 95% interval; '*' marks an interval that excludes 0.
 */
public final class ComparisonText {

    /** The metrics of the table when none are named: latency tails, goodput, hits, fetched bytes, fallbacks, wrong hits. */
    public static final List<String> DEFAULT_METRICS = Columns.names(List.of(
            Columns.TTFT_P50,
            Columns.TTFT_P99,
            Columns.ITL_P99,
            Columns.TPOT_P99,
            Columns.E2EL_P99,
            Columns.GOODPUT_RPS,
            Columns.SLO_ATTAINMENT,
            Columns.LOCAL_HIT_RATIO,
            Columns.REMOTE_HIT_RATIO,
            Columns.FETCHED_BYTES,
            Columns.FALLBACKS,
            Columns.WRONG_HITS_USED));

    private ComparisonText() {}

    /** Prints comparison {@code r} with the {@code show} metrics ({@link #DEFAULT_METRICS} when null). */
    public static void print(PrintWriter out, JsonNode r, List<String> metrics) {
        out.println("A = " + r.path("a").asText() + "   B = " + r.path("b").asText() + "   ("
                + r.path("interval").asText() + ")");
        JsonNode cap = r.path("capacity");
        if (cap.isObject()) {
            out.printf(
                    Locale.ROOT,
                    "Capacity under SLO (%s, target %s; A: %s, target %s):%n",
                    cap.path("knob_b").asText(),
                    cap.path("target_b").asText(),
                    cap.path("knob_a").asText(),
                    cap.path("target_a").asText());
            out.printf(
                    Locale.ROOT, "%-32s %14s %14s %14s %30s %8s%n", "cell (factors)", "A", "B", "B-A", "95% CI", "B/A");
            for (JsonNode c : cap.path("cells")) {
                List<String> fs = new ArrayList<>();
                c.path("factors")
                        .fields()
                        .forEachRemaining(e -> fs.add(e.getValue().asText()));
                String ci = c.path("ci95").isArray()
                        ? String.format(
                                Locale.ROOT,
                                "[%.4g, %.4g]",
                                c.path("ci95").get(0).asDouble(),
                                c.path("ci95").get(1).asDouble())
                        : "-";
                out.printf(
                        Locale.ROOT,
                        "%-32s %14s %14s %14s %30s %8s%s%n",
                        String.join("/", fs),
                        num(c.path("a")),
                        num(c.path("b")),
                        num(c.path("diff")),
                        ci,
                        c.path("ratio").isNumber()
                                ? String.format(
                                        Locale.ROOT, "%.3f", c.path("ratio").asDouble())
                                : "-",
                        c.path("significant").asBoolean() ? " *" : "");
            }
            if (!cap.path("only_in_a").isEmpty()) out.println("capacity only in A: " + cap.path("only_in_a"));
            if (!cap.path("only_in_b").isEmpty()) out.println("capacity only in B: " + cap.path("only_in_b"));
            out.println();
        }
        List<String> show = metrics == null ? DEFAULT_METRICS : metrics;
        out.printf(
                Locale.ROOT,
                "%-32s %-18s %14s %14s %14s %30s %8s%n",
                "cell (factors)",
                "metric",
                "A",
                "B",
                "B-A",
                "95% CI",
                "rel");
        for (JsonNode c : r.path("cells")) {
            List<String> fs = new ArrayList<>();
            c.path("factors").fields().forEachRemaining(e -> fs.add(e.getValue().asText()));
            String name = String.join("/", fs);
            boolean first = true;
            for (String m : show) {
                JsonNode x = c.path("metrics").path(m);
                if (x.isMissingNode()) continue;
                String ci = x.path("ci95").isArray()
                        ? String.format(
                                Locale.ROOT,
                                "[%.4g, %.4g]",
                                x.path("ci95").get(0).asDouble(),
                                x.path("ci95").get(1).asDouble())
                        : "-";
                out.printf(
                        Locale.ROOT,
                        "%-32s %-18s %14s %14s %14s %30s %8s%s%n",
                        first ? name : "",
                        m,
                        num(x.path("a")),
                        num(x.path("b")),
                        num(x.path("diff")),
                        ci,
                        x.path("rel").isNull()
                                ? "-"
                                : String.format(
                                        Locale.ROOT,
                                        "%+.1f%%",
                                        100 * x.path("rel").asDouble()),
                        x.path("significant").asBoolean() ? " *" : "");
                first = false;
            }
        }
        if (!r.path("only_in_a").isEmpty()) out.println("only in A: " + r.path("only_in_a"));
        if (!r.path("only_in_b").isEmpty()) out.println("only in B: " + r.path("only_in_b"));
        out.flush();
    }

    private static String num(JsonNode v) {
        return v.isNull() || v.isMissingNode() ? "-" : String.format(Locale.ROOT, "%.4g", v.asDouble());
    }
}
