package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.bundle.CapacityFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * "Compared with the paper": each figure of the matrix's {@code paper:} block (kept in the manifest) next to the
 * value this run measured, in the same form (a value, a ratio of two cells, or a gain), with kvlab / paper and the
 * setup differences that explain a gap. A figure whose cells did not run (a pinned factor) says so; a figure of a
 * summary column on cells a capacity search varied is that column at each search's capacity (and says so).
 */
public final class PaperComparison {

    /**
     * One row.
     *
     * @param figure      the paper's figure ("Fig. 5")
     * @param label       what the number is
     * @param paper       the paper's value
     * @param kvlab       this run's value (NaN when its cells did not run)
     * @param unit        the unit, or ""
     * @param as          value, ratio or gain
     * @param cells       the cells it was computed from (and, after " / ", those divided by)
     * @param differences setup differences
     */
    public record Row(
            String figure,
            String label,
            double paper,
            double kvlab,
            String unit,
            String as,
            String cells,
            String differences) {

        /** kvlab / paper; NaN when either is missing or the paper's value is 0. */
        public double ratio() {
            return Double.isFinite(kvlab) && paper != 0 ? kvlab / paper : Double.NaN;
        }
    }

    private PaperComparison() {}

    /** The paper block of the bundle's matrix, or a missing node. */
    public static JsonNode block(BundleData b) {
        return b.manifest().path("matrix").path("resolved").path("paper");
    }

    public static String source(BundleData b) {
        return block(b).path("source").asText("");
    }

    public static List<Row> rows(BundleData b) {
        JsonNode p = block(b);
        List<Row> rows = new ArrayList<>();
        if (!p.isObject()) return rows;
        JsonNode capacity = capacityJson(b.dir());
        String common = p.path("differences").asText("");
        for (JsonNode f : p.path("figures")) {
            String metric = f.path("metric").asText();
            String as = f.path("as").asText(f.has("over") ? "ratio" : "value");
            Measured m = measure(b, capacity, f.get("cell"), metric);
            double v = m.value();
            String cells = m.cells();
            if (f.has("over")) {
                Measured o = measure(b, capacity, f.get("over"), metric);
                double d = o.value();
                v = d == 0 || !Double.isFinite(d) ? Double.NaN : v / d;
                if (as.equals("gain")) v -= 1;
                cells += " / " + o.cells();
            }
            rows.add(new Row(
                    f.path("figure").asText(),
                    f.path("label").asText(),
                    f.path("value").asDouble(),
                    v,
                    f.path("unit").asText(""),
                    as,
                    cells,
                    f.path("differences").asText(common)));
        }
        return rows;
    }

    /** A figure's value over the cells of one selection, and the cells it came from. */
    private record Measured(double value, String cells) {}

    /**
     * {@code capacity}: the mean capacity of the matching searches. Another metric: its mean over the matching
     * fixed-load cells; when the selection names searched cells only (a matrix with a {@code capacity:} block), its
     * value in each search's run at capacity (the cells say so: "(at capacity)").
     */
    private static Measured measure(BundleData b, JsonNode capacity, JsonNode sel, String metric) {
        if (metric.strip().equals("capacity")) return new Measured(capacity(capacity, sel), capacityIds(capacity, sel));
        List<CellData> fixed = select(b, sel);
        List<JsonNode> searched = searches(capacity, sel);
        if (!fixed.isEmpty() || searched.isEmpty()) return new Measured(value(fixed, metric), ids(fixed));
        Map<String, CellData> byId = new java.util.HashMap<>();
        for (CellData c : b.cells()) byId.put(c.id(), c);
        double s = 0;
        int n = 0;
        java.util.Set<String> runs = new java.util.LinkedHashSet<>();
        for (JsonNode x : searched) {
            String run = x.path("capacity_run").asText("");
            int slash = run.lastIndexOf("/r");
            CellData c = slash < 0 ? null : byId.get(run.substring(0, slash));
            if (c == null) continue;
            int k;
            try {
                k = Integer.parseInt(run.substring(slash + 2));
            } catch (NumberFormatException e) {
                continue;
            }
            Map<String, JsonNode> row = null;
            for (Map<String, JsonNode> r : c.rows())
                if (r.get("replicate") != null && r.get("replicate").asInt() == k) row = r;
            if (row == null) continue;
            double v = 0;
            for (String part : metric.split("\\+")) v += Stat.num(row.get(part.strip()));
            s += v;
            n++;
            runs.add(run);
        }
        if (n == 0) return new Measured(Double.NaN, "(no capacity found by " + capacityIds(capacity, sel) + ")");
        return new Measured(s / n, String.join(", ", runs) + " (at capacity)");
    }

    /** Fixed-load cells whose factors match {@code sel} (a capacity search's probes are not: their load is the search's). */
    private static List<CellData> select(BundleData b, JsonNode sel) {
        List<CellData> out = new ArrayList<>();
        for (CellData c : b.cells()) if (matches(sel, c.factors()::get) && !c.id().contains("@")) out.add(c);
        return out;
    }

    private static boolean matches(JsonNode sel, java.util.function.Function<String, String> factor) {
        for (Map.Entry<String, JsonNode> e : sel.properties()) {
            JsonNode v = e.getValue();
            String want = v.isValueNode() ? v.asText() : v.toString();
            if (!want.equals(factor.apply(e.getKey()))) return false;
        }
        return true;
    }

    /** The searched cells of {@code capacity.json} (one per cell x replicate) whose factors match {@code sel}. */
    private static List<JsonNode> searches(JsonNode capacity, JsonNode sel) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode x : capacity.isArray() ? capacity : capacity.path("cells")) {
            JsonNode f = x.path("factors");
            if (matches(
                    sel,
                    k -> f.hasNonNull(k)
                            ? (f.get(k).isValueNode()
                                    ? f.get(k).asText()
                                    : f.get(k).toString())
                            : null)) out.add(x);
        }
        return out;
    }

    /** The mean capacity (last passing load) of the matching searches; NaN when none found one. */
    private static double capacity(JsonNode capacity, JsonNode sel) {
        double s = 0;
        int n = 0;
        for (JsonNode x : searches(capacity, sel)) {
            JsonNode v = x.get("capacity");
            if (v != null && v.isNumber()) {
                s += v.asDouble();
                n++;
            }
        }
        return n == 0 ? Double.NaN : s / n;
    }

    private static String capacityIds(JsonNode capacity, JsonNode sel) {
        java.util.Set<String> ids = new java.util.LinkedHashSet<>();
        for (JsonNode x : searches(capacity, sel)) ids.add(x.path("cell").asText());
        return ids.isEmpty() ? "(not searched)" : String.join(", ", ids);
    }

    /** The metric's mean over the cells (each cell's mean over replicates); a sum of columns with {@code a + b}. */
    private static double value(List<CellData> cells, String metric) {
        if (cells.isEmpty()) return Double.NaN;
        double s = 0;
        for (CellData c : cells) {
            double v = 0;
            for (String part : metric.split("\\+")) v += c.metric(part.strip()).mean();
            s += v;
        }
        return s / cells.size();
    }

    private static JsonNode capacityJson(Path dir) {
        return CapacityFile.exists(dir)
                ? BundleData.readJson(CapacityFile.in(dir))
                : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    private static String ids(List<CellData> cells) {
        if (cells.isEmpty()) return "(not run)";
        List<String> ids = new ArrayList<>();
        cells.forEach(c -> ids.add(c.id()));
        return String.join(", ", ids);
    }

    /** The value as the table prints it: a gain as a signed percentage, a ratio as ×N, else the number and unit. */
    public static String format(double v, String as, String unit) {
        if (!Double.isFinite(v)) return "–";
        return switch (as) {
            case "gain" -> String.format(java.util.Locale.ROOT, "%+.0f%%", 100 * v);
            case "ratio" ->
                unit.equals("%")
                        ? String.format(java.util.Locale.ROOT, "%.0f%%", 100 * v)
                        : String.format(java.util.Locale.ROOT, "×%.2f", v);
            default -> Fmt.num(v) + (unit.isEmpty() ? "" : " " + unit);
        };
    }
}
