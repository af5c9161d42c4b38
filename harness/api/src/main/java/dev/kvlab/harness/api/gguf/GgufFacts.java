package dev.kvlab.harness.api.gguf;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * A GGUF file's facts as {@code kvlab plan --gguf} reports them, in this order ({@link GgufModelInfo#facts}): the file,
 * the model's name (null when the file has none), its shape, size and hash, and its single-token words (null unless
 * kvlab synthesized it).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record GgufFacts(
        String gguf,
        String model,
        String architecture,
        int layers,
        int hidden,
        int heads,
        int kvHeads,
        int headDim,
        int ff,
        int vocab,
        long contextLength,
        long parameters,
        int fileType,
        long fileBytes,
        String sha256,
        Integer singleTokenWords) {}
