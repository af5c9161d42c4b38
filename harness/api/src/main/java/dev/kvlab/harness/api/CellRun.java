package dev.kvlab.harness.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.config.RunConfig;
import java.util.Map;

/**
 * One cell × replicate of a matrix, resolved and validated: what the runner hands to {@link CellRunner}.
 *
 * @param cell      the cell id ({@code c03-hot_combined})
 * @param index     the cell's position in the matrix, from 0
 * @param factors   factor config key → level label, in matrix order (empty for a matrix without factors)
 * @param replicate 0 .. replicates-1
 * @param seed      the replicate's seed ({@code seed + replicate}: replicate k uses the same seed in every cell)
 * @param mode      sim or live
 * @param config    the bound config
 * @param tree      the resolved config tree it was bound from (paths absolute): what the manifest records and
 *                  {@code kvlab verify --rerun} re-binds
 */
public record CellRun(
        String cell,
        int index,
        Map<String, String> factors,
        int replicate,
        long seed,
        Mode mode,
        RunConfig config,
        ObjectNode tree) {

    public CellRun {
        factors = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(factors));
    }

    /** {@code c03-hot_combined/r1}. */
    public String label() {
        return cell + "/r" + replicate;
    }
}
