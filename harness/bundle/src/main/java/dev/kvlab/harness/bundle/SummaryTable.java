package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Csv;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.SummaryRow;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rows of {@code summary.csv} / {@code summary.json}, built from the bundle's {@code cell.json} files (so a
 * resumed run and a fresh one print the same text): {@code cell, replicate}, the cell summary's columns (not the
 * mode-specific extras, except {@link Columns#rowExtras()}), then one column per factor that is not already a column.
 */
public final class SummaryTable {

    public static final int SCHEMA = 1;
    /** Columns that are never metrics. */
    private static final Set<String> NOT_METRICS = Set.of(SummaryRow.CELL, SummaryRow.REPLICATE, Columns.SEED.name());

    private final List<String> columns;
    private final List<SummaryRow> rows;
    /** Cell id → its runs' factor levels (summary.json's per-cell {@code factors}). */
    private final Map<String, Map<String, String>> cellFactors;

    public SummaryTable(List<String> columns, List<SummaryRow> rows) {
        this(columns, rows, Map.of());
    }

    private SummaryTable(List<String> columns, List<SummaryRow> rows, Map<String, Map<String, String>> cellFactors) {
        this.columns = List.copyOf(columns);
        this.rows = List.copyOf(rows);
        this.cellFactors = Map.copyOf(cellFactors);
    }

    public List<String> columns() {
        return columns;
    }

    public List<SummaryRow> rows() {
        return rows;
    }

    /** Reads every cell × replicate's {@code cell.json} in matrix order (a fixed matrix's runs). */
    public static SummaryTable fromCells(Path bundle, MatrixSpec spec) throws IOException {
        return fromCells(bundle, spec, spec.runs());
    }

    /**
     * Reads the {@code cell.json} of {@code runs} (the runs recorded, in the experiment's order); factor columns are the
     * matrix's factors followed by any other factor the runs carry (a capacity probe's load knob).
     */
    public static SummaryTable fromCells(Path bundle, MatrixSpec spec, List<CellRun> runs) throws IOException {
        Set<String> cols = new LinkedHashSet<>(List.of(SummaryRow.CELL, SummaryRow.REPLICATE));
        List<SummaryRow.Builder> rows = new ArrayList<>();
        for (CellRun r : runs) {
            JsonNode cj = RunFiles.cellJson(CellFiles.dir(bundle, r.cell(), r.replicate()));
            Set<String> extras = new HashSet<>();
            cj.path("extra_fields").forEach(e -> {
                if (!Columns.isRowExtra(e.asText())) extras.add(e.asText());
            });
            SummaryRow.Builder row = SummaryRow.builder()
                    .put(SummaryRow.CELL, r.cell())
                    .put(SummaryRow.REPLICATE, (long) r.replicate())
                    .putAll(Rows.fromJson(cj.get("summary"), extras));
            cols.addAll(row.names());
            rows.add(row);
        }
        // a row extra one clock has and the other has not (store_*, twin_*) is NaN where absent, as any missing figure
        for (SummaryRow.Builder row : rows)
            for (String c : cols) if (Columns.isRowExtra(c)) row.putIfAbsent(c, Double.NaN);
        Set<String> factorKeys = new LinkedHashSet<>(spec.factors().keySet());
        Map<String, Map<String, String>> cellFactors = new LinkedHashMap<>();
        for (CellRun r : runs) {
            factorKeys.addAll(r.factors().keySet());
            cellFactors.putIfAbsent(r.cell(), r.factors());
        }
        cols.addAll(factorKeys);
        List<SummaryRow> built = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            CellRun r = runs.get(i);
            SummaryRow.Builder row = rows.get(i);
            for (String f : factorKeys) row.putIfAbsent(f, r.factors().get(f));
            built.add(row.build());
        }
        return new SummaryTable(new ArrayList<>(cols), built, cellFactors);
    }

    public byte[] csv() {
        StringBuilder sb = new StringBuilder();
        Csv.appendRow(sb, columns);
        List<Object> vals = new ArrayList<>(columns.size());
        for (SummaryRow row : rows) {
            vals.clear();
            for (String c : columns)
                vals.add(row.get(c) != null ? row.get(c) : Double.NaN); // absent: NaN, as summary.json's null reads
            Csv.appendRow(sb, vals);
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The metric columns: numeric in every row, not an id, seed or factor. */
    public List<String> metricColumns(Set<String> factorKeys) {
        List<String> out = new ArrayList<>();
        for (String c : columns) {
            if (NOT_METRICS.contains(c) || factorKeys.contains(c)) continue;
            boolean all = !rows.isEmpty();
            for (SummaryRow r : rows) all &= Rows.numeric(r.get(c));
            if (all) out.add(c);
        }
        return out;
    }

    /** {@code summary.json}: the rows plus, per cell, means with 95% intervals and paired differences against the baseline. */
    public ObjectNode json(String runId, MatrixSpec spec) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode o = f.objectNode();
        o.put("schema", SCHEMA);
        o.put("run_id", runId);
        o.put("matrix", spec.name());
        ObjectNode fac = o.putObject("factors");
        spec.factors().forEach((k, v) -> {
            ArrayNode a = fac.putArray(k);
            v.forEach(a::add);
        });
        if (spec.baseline() == null) o.putNull("baseline");
        else o.put("baseline", spec.baseline());
        ArrayNode cols = o.putArray("columns");
        columns.forEach(cols::add);
        ArrayNode rs = o.putArray("rows");
        for (SummaryRow row : rows) {
            ObjectNode r = rs.addObject();
            for (String c : columns) r.set(c, Rows.toJson(row.get(c)));
        }
        Set<String> factorKeys = new LinkedHashSet<>(spec.factors().keySet());
        cellFactors.values().forEach(m -> factorKeys.addAll(m.keySet()));
        List<String> metrics = metricColumns(factorKeys);
        Map<String, Map<String, List<Double>>> byCell = new LinkedHashMap<>();
        for (SummaryRow row : rows) {
            Map<String, List<Double>> m =
                    byCell.computeIfAbsent((String) row.get(SummaryRow.CELL), k -> new LinkedHashMap<>());
            int k = ((Number) row.get(SummaryRow.REPLICATE)).intValue();
            for (String c : metrics) {
                List<Double> l = m.computeIfAbsent(c, x -> new ArrayList<>());
                while (l.size() <= k) l.add(Double.NaN);
                l.set(k, ((Number) row.get(c)).doubleValue());
            }
        }
        ArrayNode cells = o.putArray("cells");
        Map<String, List<Double>> base = spec.baseline() == null ? null : byCell.get(spec.baseline());
        for (var e : byCell.entrySet()) {
            String id = e.getKey();
            Map<String, List<Double>> vals = e.getValue();
            List<SummaryRow> cellRows =
                    rows.stream().filter(r -> id.equals(r.get(SummaryRow.CELL))).toList();
            ObjectNode c = cells.addObject();
            c.put("cell", id);
            ObjectNode cf = c.putObject("factors");
            cellFactors.getOrDefault(id, Map.of()).forEach(cf::put);
            c.put("mode", String.valueOf(cellRows.get(0).get(Columns.MODE)));
            c.put("replicates", cellRows.size());
            ObjectNode ms = c.putObject("metrics");
            for (String m : metrics) ms.set(m, estimate(ReplicateStats.mean(vals.get(m)), false));
            if (base == null || id.equals(spec.baseline())) c.putNull("vs_baseline");
            else {
                ObjectNode vb = c.putObject("vs_baseline");
                for (String m : metrics) vb.set(m, estimate(ReplicateStats.paired(vals.get(m), base.get(m)), true));
            }
        }
        return o;
    }

    static ObjectNode estimate(ReplicateStats.Estimate e, boolean diff) {
        return estimate(e, diff ? "mean_diff" : "mean");
    }

    /** An estimate as summary.json writes it: {@code {<meanName>, stdev, n, ci95: [lo, hi] | null}}. */
    public static ObjectNode estimate(ReplicateStats.Estimate e, String meanName) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.set(meanName, Rows.toJson(e.mean()));
        n.set("stdev", Rows.toJson(e.stdev()));
        n.put("n", e.n());
        if (e.hasInterval()) {
            ArrayNode ci = n.putArray("ci95");
            ci.add(Rows.toJson(e.lo()));
            ci.add(Rows.toJson(e.hi()));
        } else n.putNull("ci95");
        return n;
    }
}
