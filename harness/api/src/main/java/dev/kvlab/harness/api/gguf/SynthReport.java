package dev.kvlab.harness.api.gguf;

import java.util.LinkedHashMap;
import java.util.Map;

/** What {@code kvlab model synth --json} prints about a synthesized model: its shape, file and KV size, in order. */
public final class SynthReport {

    private SynthReport() {}

    /** The model {@code s} written as {@code r}, as ordered name-value pairs. */
    public static Map<String, Object> map(SynthSpec s, GgufSynth.Result r) {
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
}
