package dev.kvlab.harness.experiments.internal.matrix;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.LocatedTree;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code paper:} block of a matrix: published figures the report compares the run with ("Compared with the
 * paper"). Checked when the matrix is read, so a typo is an exit-2 error naming FILE:LINE, not a silent blank row.
 *
 * <pre>
 * paper:
 *   source: "Mooncake FAST'25"
 *   differences: "what differs from the paper's setup (shown where a figure gives none)"
 *   figures:
 *     - label: "mean TTFT, random"      # what the number is
 *       figure: "Fig. 5"
 *       metric: ttft_mean_ms            # a summary column, a sum of columns (local_hit_ratio + remote_hit_ratio),
 *                                       # or capacity (capacity.json of a capacity search); a column on searched
 *                                       # cells is read from each search's run at capacity
 *       cell: {cluster.router: random}  # factor -> level; several matching cells are averaged
 *       over: {cluster.router: least-loaded}   # optional: divide by the same metric of these cells
 *       as: value | ratio | gain        # value (default), ratio = cell / over (default with over), gain = ratio - 1
 *       value: 19650                    # the paper's figure, in the same form
 *       unit: ms                        # optional
 *       differences: "..."              # optional
 * </pre>
 */
final class PaperFigures {

    static final Set<String> FIGURE_KEYS =
            Set.of("label", "figure", "metric", "cell", "over", "as", "value", "unit", "differences");
    static final Set<String> BLOCK_KEYS = Set.of("source", "differences", "figures");

    private PaperFigures() {}

    /** Checks {@code /paper} of {@code t} against the matrix's factors (key → level labels). */
    static void check(LocatedTree t, Map<String, List<String>> factors) {
        JsonNode p = t.root().get("paper");
        if (p == null || p.isNull()) return;
        if (!(p instanceof ObjectNode o))
            throw bad(t, "/paper", "paper: expected a mapping with figures (and source, differences)");
        o.fieldNames().forEachRemaining(k -> {
            if (!BLOCK_KEYS.contains(k))
                throw bad(t, "/paper/" + k, "paper: unknown key '" + k + "' (known: source, differences, figures)");
        });
        for (String k : List.of("source", "differences"))
            if (o.has(k) && !o.get(k).isTextual()) throw bad(t, "/paper/" + k, "paper." + k + ": expected a text");
        if (!(o.get("figures") instanceof ArrayNode figs) || figs.isEmpty())
            throw bad(t, "/paper/figures", "paper.figures: expected a non-empty list of figures");
        for (int i = 0; i < figs.size(); i++) {
            String ptr = "/paper/figures/" + i;
            String what = "paper.figures[" + i + "]";
            if (!(figs.get(i) instanceof ObjectNode f))
                throw bad(t, ptr, what + ": expected a mapping (label, figure, metric, cell, value)");
            f.fieldNames().forEachRemaining(k -> {
                if (!FIGURE_KEYS.contains(k))
                    throw bad(
                            t,
                            ptr + "/" + k,
                            what + ": unknown key '" + k + "' (known: "
                                    + String.join(
                                            ", ", FIGURE_KEYS.stream().sorted().toList()) + ")");
            });
            for (String k : List.of("label", "figure", "metric"))
                if (!f.path(k).isTextual() || f.get(k).asText().isBlank())
                    throw bad(t, ptr, what + ": '" + k + "' must be a non-empty text");
            if (!f.path("value").isNumber())
                throw bad(
                        t,
                        ptr + (f.has("value") ? "/value" : ""),
                        what + ": 'value' must be a number (the paper's figure)");
            for (String k : List.of("unit", "differences"))
                if (f.has(k) && !f.get(k).isTextual())
                    throw bad(t, ptr + "/" + k, what + ": '" + k + "' must be a text");
            metric(t, ptr + "/metric", what, f.get("metric").asText(), factors);
            String as = f.path("as").asText(f.has("over") ? "ratio" : "value");
            if (!List.of("value", "ratio", "gain").contains(as))
                throw bad(t, ptr + "/as", what + ": 'as' must be value, ratio or gain");
            if (!as.equals("value") && !f.has("over"))
                throw bad(t, ptr + "/as", what + ": '" + as + "' needs 'over' (the cells to divide by)");
            selection(t, ptr + "/cell", what + ".cell", f.get("cell"), factors);
            if (f.has("over")) selection(t, ptr + "/over", what + ".over", f.get("over"), factors);
        }
    }

    /**
     * The columns a figure's {@code metric} may name: every numeric column of a summary row (the run's own and the
     * extras some cells carry); {@code capacity} on its own.
     */
    static List<String> knownColumns() {
        Set<String> cols = new java.util.TreeSet<>(Columns.numericSummaryNames());
        cols.addAll(Columns.names(Columns.rowExtras()));
        cols.remove(Columns.SEED.name());
        return List.copyOf(cols);
    }

    /** {@code capacity}, a summary column, or a sum of columns ({@code a + b}); anything else is refused naming the known columns. */
    private static void metric(
            LocatedTree t, String ptr, String what, String metric, Map<String, List<String>> factors) {
        if (metric.strip().equals("capacity")) return;
        List<String> known = knownColumns();
        for (String part : metric.split("\\+", -1)) {
            String p = part.strip();
            String why = p.isEmpty()
                    ? "an empty term in '" + metric + "'"
                    : p.equals("capacity")
                            ? "capacity cannot be summed with other columns"
                            : known.contains(p) ? null : "'" + p + "' is not a column of summary rows";
            if (why != null)
                throw bad(
                        t,
                        ptr,
                        what + ".metric: " + why + " (known: capacity, or one of these columns, or a sum with +: "
                                + String.join(", ", known) + ")");
        }
    }

    private static void selection(
            LocatedTree t, String ptr, String what, JsonNode sel, Map<String, List<String>> factors) {
        if (!(sel instanceof ObjectNode o))
            throw bad(t, ptr, what + ": expected a mapping of factor -> level, e.g. {cluster.router: random}");
        o.properties().forEach(e -> {
            List<String> levels = factors.get(e.getKey());
            if (levels == null)
                throw bad(
                        t,
                        ptr + "/" + e.getKey(),
                        what + ": '" + e.getKey() + "' is not a factor of this matrix (factors: "
                                + String.join(", ", factors.keySet()) + ")");
            String v = MatrixParser.label(e.getValue());
            if (!levels.contains(v))
                throw bad(
                        t,
                        ptr + "/" + e.getKey(),
                        what + ": '" + v + "' is not a level of factor " + e.getKey() + " (levels: "
                                + String.join(", ", levels) + ")");
        });
    }

    private static BadInputException bad(LocatedTree t, String ptr, String reason) {
        String o = t.origin(ptr);
        return new BadInputException((o == null ? "matrix" : o) + ": " + reason);
    }
}
