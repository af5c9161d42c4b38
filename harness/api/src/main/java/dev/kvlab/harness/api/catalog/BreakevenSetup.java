package dev.kvlab.harness.api.catalog;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * What a {@link BreakevenReport} compares, as {@code kvlab breakeven} reports it: the model on the GPU kind, the link
 * per GPU (its rate and latency), TP and KV dtype, and the prefix; {@code suffixTokens} and {@code passTokens} are
 * null (and absent from the JSON) when the prompt has no suffix and a prefill is one pass.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record BreakevenSetup(
        String model,
        String hardware,
        String link,
        double linkGbpsPerGpu,
        double linkLatencyUs,
        int tp,
        String dtype,
        long prefixTokens,
        @JsonInclude(JsonInclude.Include.NON_NULL) Integer suffixTokens,
        @JsonInclude(JsonInclude.Include.NON_NULL) Integer passTokens) {}
