package dev.kvlab.harness.api.gguf;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The shape of a model read from a GGUF file's header (any decoder architecture that uses llama.cpp's
 * {@code ARCH.block_count / embedding_length / attention.head_count[_kv]} keys), with the file's size and SHA-256.
 * KV heads default to the heads, key/value head dimensions to {@code hidden / heads} (as llama.cpp does). Read with
 * {@link dev.kvlab.harness.Gguf#read}.
 *
 * @param keyLength   head dimension of K ({@code ARCH.attention.key_length}, else hidden / heads)
 * @param valueLength head dimension of V ({@code ARCH.attention.value_length}, else the key length)
 * @param ff          feed-forward size, 0 when the file does not say
 * @param fileType    {@code general.file_type}, -1 when absent
 * @param synthVocab  whether the tokenizer is exactly kvlab's {@link SynthVocabulary} for this vocab size
 */
public record GgufModelInfo(
        Path path,
        String architecture,
        String name,
        int layers,
        int hidden,
        int heads,
        int kvHeads,
        int keyLength,
        int valueLength,
        int ff,
        int vocab,
        long contextLength,
        int fileType,
        long parameters,
        int tensors,
        long fileBytes,
        String sha256,
        boolean synthVocab) {

    /** Bytes of the KV cache at llama.cpp's default f16 cache type. */
    public static final int KV_DTYPE_BYTES = 2;

    /** Head dimension (of K). */
    public int headDim() {
        return keyLength;
    }

    /** KV bytes per token at an f16 cache: layers × kv_heads × (key + value head dims) × 2 (= layers × 2 × kv_heads × head_dim × 2). */
    public long kvBytesPerToken() {
        return (long) layers * kvHeads * ((long) keyLength + valueLength) * KV_DTYPE_BYTES;
    }

    /** The single-token words of a model synthesized by kvlab; empty for any other tokenizer. */
    public Optional<SynthVocabulary> vocabulary() {
        return synthVocab ? Optional.of(SynthVocabulary.of(vocab)) : Optional.empty();
    }

    /** This file's facts as {@code kvlab plan --gguf} reports them. */
    public GgufFacts facts() {
        return new GgufFacts(
                path.toString(),
                name.isEmpty() ? null : name,
                architecture,
                layers,
                hidden,
                heads,
                kvHeads,
                headDim(),
                ff,
                vocab,
                contextLength,
                parameters,
                fileType,
                fileBytes,
                sha256,
                vocabulary().map(v -> v.wordCount()).orElse(null));
    }
}
