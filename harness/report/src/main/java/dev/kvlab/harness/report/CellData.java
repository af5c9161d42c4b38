package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One cell of a bundle as the report sees it.
 *
 * @param id           cell id, e.g. {@code c03-hot_combined_fetch}
 * @param factors      factor key → level, in matrix order
 * @param mode         {@code sim} or {@code live}
 * @param replicates   replicates run
 * @param metrics      numeric column → mean and 95% interval across replicates
 * @param vsBaseline   numeric column → paired difference against the baseline cell (empty for the baseline)
 * @param rows         this cell's {@code summary.csv} rows (column → value), by replicate
 * @param replicateDirs the existing {@code cells/<id>/r<k>/} directories, by replicate
 * @param config       the resolved config of replicate 0 (from {@code cell.json} or the manifest), or a missing node
 * @param describe     what ran, as replicate 0's {@code cell.json} describes it (workload, store, transport, clock, gpu)
 */
public record CellData(
        String id,
        Map<String, String> factors,
        String mode,
        int replicates,
        Map<String, Stat> metrics,
        Map<String, Stat> vsBaseline,
        List<Map<String, JsonNode>> rows,
        List<Path> replicateDirs,
        JsonNode config,
        Map<String, String> describe) {

    public Stat metric(String column) {
        return metrics.getOrDefault(column, Stat.NONE);
    }

    public Stat diff(String column) {
        return vsBaseline.getOrDefault(column, Stat.NONE);
    }

    /** A text column of replicate 0's row ({@code transport}, {@code cache_state}, …), or the factor, or "". */
    public String text(String column) {
        String f = factors.get(column);
        if (f != null) return f;
        if (!rows.isEmpty()) {
            JsonNode v = rows.getFirst().get(column);
            if (v != null && !v.isNull()) return v.asText();
        }
        return "";
    }

    /** The sum of a numeric column over the replicates (e.g. {@code wrong_hits_used}); NaN when absent. */
    public double sum(String column) {
        double s = 0;
        boolean any = false;
        for (Map<String, JsonNode> r : rows) {
            double v = Stat.num(r.get(column));
            if (Double.isFinite(v)) {
                s += v;
                any = true;
            }
        }
        return any ? s : Double.NaN;
    }

    /** The cell's label in charts: its id without the {@code cNN-} prefix when factors make it unique, else the id. */
    public String label() {
        return id;
    }
}
