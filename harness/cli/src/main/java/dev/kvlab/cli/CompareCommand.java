package dev.kvlab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.internal.bundle.BundleComparison;
import dev.kvlab.harness.internal.bundle.BundleJson;
import dev.kvlab.harness.internal.bundle.OpenedBundle;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kvlab compare A B}: per-cell differences between two bundles with 95% intervals. */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Per-cell differences between two bundles (directories or .tar.gz): cells matched by their factor values, "
                + "B - A per metric with Welch's 95%% interval across replicates; '*' marks an interval that excludes 0. "
                + "Bundles of capacity searches: the capacity of every searched cell first, compared the same way. "
                + "Exit 2 when no cell matches; a warning on stderr when one bundle is sim and the other live.")
public final class CompareCommand implements Callable<Integer> {

    private static final List<String> DEFAULT_METRICS = Columns.names(List.of(Columns.TTFT_P50, Columns.TTFT_P99, Columns.ITL_P99,
            Columns.TPOT_P99, Columns.E2EL_P99,
            Columns.GOODPUT_RPS, Columns.SLO_ATTAINMENT, Columns.LOCAL_HIT_RATIO, Columns.REMOTE_HIT_RATIO, Columns.FETCHED_BYTES,
                    Columns.FALLBACKS, Columns.WRONG_HITS_USED));

    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "BUNDLE_A") Path a;
    @Parameters(index = "1", paramLabel = "BUNDLE_B") Path b;

    @Option(names = "--json", description = "print one JSON object (every metric)") boolean json;

    @Option(names = "--metrics", split = ",", paramLabel = "M1,M2", description = "metrics of the table (default: latency tails, goodput, hits, fetched bytes, fallbacks, wrong hits)")
    List<String> metrics;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (OpenedBundle ba = OpenedBundle.open(a); OpenedBundle bb = OpenedBundle.open(b)) {
            ObjectNode r = BundleComparison.compare(ba.dir(), bb.dir());
            if (r.path("cells").isEmpty() && r.path("capacity").path("cells").isEmpty())
                throw new BadInputException("no cell of " + a + " matches a cell of " + b + " (cells are matched by their factor values; only in A: "
                        + r.path("only_in_a") + ", only in B: " + r.path("only_in_b") + ")");
            PrintWriter err = spec.commandLine().getErr();
            for (JsonNode w : r.path("warnings")) err.println("kvlab compare: warning: " + w.asText());
            err.flush();
            if (json) {
                out.println(BundleJson.mapper().writeValueAsString(r));
                out.flush();
                return Kvlab.EXIT_OK;
            }
            out.println("A = " + r.path("a").asText() + "   B = " + r.path("b").asText() + "   (" + r.path("interval").asText() + ")");
            JsonNode cap = r.path("capacity");
            if (cap.isObject()) {
                out.printf(Locale.ROOT, "Capacity under SLO (%s, target %s; A: %s, target %s):%n", cap.path("knob_b").asText(), cap.path("target_b").asText(),
                        cap.path("knob_a").asText(), cap.path("target_a").asText());
                out.printf(Locale.ROOT, "%-32s %14s %14s %14s %30s %8s%n", "cell (factors)", "A", "B", "B-A", "95% CI", "B/A");
                for (JsonNode c : cap.path("cells")) {
                    List<String> fs = new ArrayList<>();
                    c.path("factors").fields().forEachRemaining(e -> fs.add(e.getValue().asText()));
                    String ci = c.path("ci95").isArray() ? String.format(Locale.ROOT, "[%.4g, %.4g]", c.path("ci95").get(0).asDouble(), c.path("ci95").get(1).asDouble()) : "-";
                    out.printf(Locale.ROOT, "%-32s %14s %14s %14s %30s %8s%s%n", String.join("/", fs), num(c.path("a")), num(c.path("b")), num(c.path("diff")), ci,
                            c.path("ratio").isNumber() ? String.format(Locale.ROOT, "%.3f", c.path("ratio").asDouble()) : "-", c.path("significant").asBoolean() ? " *" : "");
                }
                if (!cap.path("only_in_a").isEmpty()) out.println("capacity only in A: " + cap.path("only_in_a"));
                if (!cap.path("only_in_b").isEmpty()) out.println("capacity only in B: " + cap.path("only_in_b"));
                out.println();
            }
            List<String> show = metrics == null ? DEFAULT_METRICS : metrics;
            out.printf(Locale.ROOT, "%-32s %-18s %14s %14s %14s %30s %8s%n", "cell (factors)", "metric", "A", "B", "B-A", "95% CI", "rel");
            for (JsonNode c : r.path("cells")) {
                List<String> fs = new ArrayList<>();
                c.path("factors").fields().forEachRemaining(e -> fs.add(e.getValue().asText()));
                String name = String.join("/", fs);
                boolean first = true;
                for (String m : show) {
                    JsonNode x = c.path("metrics").path(m);
                    if (x.isMissingNode()) continue;
                    String ci = x.path("ci95").isArray() ? String.format(Locale.ROOT, "[%.4g, %.4g]", x.path("ci95").get(0).asDouble(), x.path("ci95").get(1).asDouble()) : "-";
                    out.printf(Locale.ROOT, "%-32s %-18s %14s %14s %14s %30s %8s%s%n", first ? name : "", m, num(x.path("a")), num(x.path("b")),
                            num(x.path("diff")), ci, x.path("rel").isNull() ? "-" : String.format(Locale.ROOT, "%+.1f%%", 100 * x.path("rel").asDouble()),
                            x.path("significant").asBoolean() ? " *" : "");
                    first = false;
                }
            }
            if (!r.path("only_in_a").isEmpty()) out.println("only in A: " + r.path("only_in_a"));
            if (!r.path("only_in_b").isEmpty()) out.println("only in B: " + r.path("only_in_b"));
            out.flush();
            return Kvlab.EXIT_OK;
        }
    }

    private static String num(JsonNode v) {
        return v.isNull() || v.isMissingNode() ? "-" : String.format(Locale.ROOT, "%.4g", v.asDouble());
    }
}
