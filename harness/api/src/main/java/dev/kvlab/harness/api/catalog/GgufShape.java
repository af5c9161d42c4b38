package dev.kvlab.harness.api.catalog;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.kvlab.harness.api.gguf.GgufFacts;

/**
 * A model read from a GGUF file, as {@code kvlab plan --gguf} reports it: the file's {@code facts} (its name, layers
 * and heads among them), then the rest of the {@link ModelShape}: attention kind, MLA rank and rotary dimension.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record GgufShape(@JsonUnwrapped GgufFacts facts, String attention, Integer mlaRank, Integer ropeDim)
        implements PlanModel {

    /** The file's {@code facts}, then what {@code shape} adds to them. */
    public static GgufShape of(GgufFacts facts, ModelShape shape) {
        return new GgufShape(facts, shape.attention(), shape.mlaRank(), shape.ropeDim());
    }
}
