package dev.kvlab.harness.api.catalog;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * A model's weights on each TP GPU, as {@code kvlab breakeven} reports them: bytes per rank, whether they fit 90% of
 * its HBM, and the least power-of-two TP at which they would (at most 1024).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record BreakevenWeights(long weightBytesPerRank, boolean weightsFit, int minTpThatFits) {

    /** Model {@code m} on GPUs of kind {@code hw} at tensor parallelism {@code tp}. */
    public static BreakevenWeights of(ModelSpec m, HardwareSpec hw, int tp) {
        double weights = m.weightBytes();
        double weightsPerRank = weights / tp;
        int minTp = 1;
        while (weights / minTp > 0.9 * hw.hbmCapacity() && minTp < 1024) minTp *= 2;
        return new BreakevenWeights((long) weightsPerRank, weightsPerRank <= 0.9 * hw.hbmCapacity(), minTp);
    }
}
