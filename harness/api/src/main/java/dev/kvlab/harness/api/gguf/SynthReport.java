package dev.kvlab.harness.api.gguf;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.kvlab.transport.api.ByteSize;
import java.util.Locale;

/**
 * What {@code kvlab model synth} prints about a synthesized model: the file, its shape and seed, its size and hash, its
 * KV bytes per token and single-token words, and how long writing it took; as one JSON object in this order
 * ({@code --json}) or as {@link #text}.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record SynthReport(
        String path,
        String name,
        int layers,
        int hidden,
        int heads,
        int kvHeads,
        int headDim,
        int ff,
        int vocab,
        int contextLength,
        String dtype,
        long seed,
        long parameters,
        int tensors,
        long bytes,
        String sha256,
        long kvBytesPerToken,
        int singleTokenWords,
        double seconds) {

    /** The model {@code s} written as {@code r}. */
    public static SynthReport of(SynthSpec s, SynthResult r) {
        return new SynthReport(
                r.path().toString(),
                s.name(),
                s.layers(),
                s.hidden(),
                s.heads(),
                s.kvHeads(),
                s.headDim(),
                s.ff(),
                s.vocab(),
                s.context(),
                s.dtype().toString(),
                s.seed(),
                r.parameters(),
                r.tensors(),
                r.bytes(),
                r.sha256(),
                s.kvBytesPerToken(),
                s.vocabulary().wordCount(),
                r.elapsed().toNanos() / 1e9);
    }

    /** The report as {@code kvlab model synth}'s lines: the file, the shape, its size and hash, its KV. */
    public String text() {
        return String.format(Locale.ROOT, "wrote %s%n", path)
                + String.format(
                        Locale.ROOT,
                        "  %s: %d layers, hidden %d, %d heads / %d KV heads (head_dim %d), ff %d, vocab %d, %s, seed %d%n",
                        name,
                        layers,
                        hidden,
                        heads,
                        kvHeads,
                        headDim,
                        ff,
                        vocab,
                        dtype,
                        seed)
                + String.format(
                        Locale.ROOT,
                        "  %,d parameters, %,d bytes (%s), %d tensors, %.2f s%n",
                        parameters,
                        bytes,
                        ByteSize.format(bytes),
                        tensors,
                        seconds)
                + String.format(
                        Locale.ROOT,
                        "  kv_bytes_per_token %,d; %,d single-token words; sha256 %s%n",
                        kvBytesPerToken,
                        singleTokenWords,
                        sha256);
    }
}
