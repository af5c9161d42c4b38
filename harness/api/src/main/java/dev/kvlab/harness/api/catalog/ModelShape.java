package dev.kvlab.harness.api.catalog;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * The model a plan sizes, as {@code kvlab plan} reports it: its catalog id (null for bare dimensions), attention kind
 * and KV shape ({@code kvHeads} and {@code headDim} null under MLA, {@code mlaRank} and {@code ropeDim} null without).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record ModelShape(
        String model, String attention, int layers, Integer kvHeads, Integer headDim, Integer mlaRank, Integer ropeDim)
        implements PlanModel {

    /** Catalog model {@code m} (null for bare dimensions) of KV shape {@code shape}. */
    public static ModelShape of(ModelSpec m, KvShape shape) {
        return new ModelShape(
                m == null ? null : m.id(),
                m != null ? m.attentionKind() : shape.isMla() ? "mla" : "kv-heads",
                shape.layers(),
                shape.isMla() ? null : shape.kvHeads(),
                shape.isMla() ? null : shape.headDim(),
                shape.mlaRank(),
                shape.ropeDim());
    }
}
