package dev.kvlab.harness.api.gguf;

import dev.kvlab.transport.api.ByteSize;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** What {@code kvlab model synth} prints about a synthesized model: its shape, file and KV size, in order ({@code --json}) or as text. */
public final class SynthReport {

    private SynthReport() {}

    /** The model {@code s} written as {@code r}, as ordered name-value pairs. */
    public static Map<String, Object> map(SynthSpec s, SynthResult r) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("path", r.path().toString());
        o.put("name", s.name());
        o.put("layers", s.layers());
        o.put("hidden", s.hidden());
        o.put("heads", s.heads());
        o.put("kv_heads", s.kvHeads());
        o.put("head_dim", s.headDim());
        o.put("ff", s.ff());
        o.put("vocab", s.vocab());
        o.put("context_length", s.context());
        o.put("dtype", s.dtype().toString());
        o.put("seed", s.seed());
        o.put("parameters", r.parameters());
        o.put("tensors", r.tensors());
        o.put("bytes", r.bytes());
        o.put("sha256", r.sha256());
        o.put("kv_bytes_per_token", s.kvBytesPerToken());
        o.put("single_token_words", s.vocabulary().wordCount());
        o.put("seconds", r.elapsed().toNanos() / 1e9);
        return o;
    }

    /** The model {@code s} written as {@code r}, as {@code kvlab model synth}'s lines: the file, the shape, its size and hash, its KV. */
    public static String text(SynthSpec s, SynthResult r) {
        return String.format(Locale.ROOT, "wrote %s%n", r.path())
                + String.format(
                        Locale.ROOT,
                        "  %s: %d layers, hidden %d, %d heads / %d KV heads (head_dim %d), ff %d, vocab %d, %s, seed %d%n",
                        s.name(),
                        s.layers(),
                        s.hidden(),
                        s.heads(),
                        s.kvHeads(),
                        s.headDim(),
                        s.ff(),
                        s.vocab(),
                        s.dtype(),
                        s.seed())
                + String.format(
                        Locale.ROOT,
                        "  %,d parameters, %,d bytes (%s), %d tensors, %.2f s%n",
                        r.parameters(),
                        r.bytes(),
                        ByteSize.format(r.bytes()),
                        r.tensors(),
                        r.elapsed().toNanos() / 1e9)
                + String.format(
                        Locale.ROOT,
                        "  kv_bytes_per_token %,d; %,d single-token words; sha256 %s%n",
                        s.kvBytesPerToken(),
                        s.vocabulary().wordCount(),
                        r.sha256());
    }
}
