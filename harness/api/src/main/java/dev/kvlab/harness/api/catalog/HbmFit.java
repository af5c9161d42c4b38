package dev.kvlab.harness.api.catalog;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * What fits the HBM of each TP GPU, as {@code kvlab plan --hardware} reports it: the GPU's HBM, the model's weights
 * on it (and whether they fit the usable share), and the KV bytes, tokens, blocks and requests left beside them
 * (whole ones; 0 when the weights do not fit).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record HbmFit(
        String hardware,
        long hbmBytesPerRank,
        long weightBytesPerRank,
        boolean weightsFit,
        long hbmKvBytesPerRank,
        long hbmKvTokens,
        long hbmKvBlocks,
        long hbmKvRequests) {

    /** Model {@code m} on {@code kv}'s TP GPUs of kind {@code hw}, {@code memFraction} of HBM usable for weights and KV. */
    public static HbmFit of(
            ModelSpec m, HardwareSpec hw, KvSizing kv, double memFraction, long tokens, int blockTokens) {
        double weightsPerRank = m.weightBytes() / kv.tp();
        double usable = hw.hbmCapacity() * memFraction;
        double kvPerRank = Math.max(0, usable - weightsPerRank);
        return new HbmFit(
                hw.id(),
                hw.hbmCapacity(),
                (long) weightsPerRank,
                weightsPerRank < usable,
                (long) kvPerRank,
                (long) (kvPerRank / kv.bytesPerTokenPerRank()),
                (long) (kvPerRank / kv.blockBytesPerRank(blockTokens)),
                (long) (kvPerRank / kv.bytesPerRequestPerRank(tokens)));
    }
}
