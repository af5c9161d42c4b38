package dev.kvlab.harness.openai.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;

/** Which engine serves an endpoint, told by what it answers: llama.cpp's {@code /props}, vLLM's {@code /version}, SGLang's {@code /get_server_info}. */
enum EngineKind {
    LLAMA_CPP("llama.cpp"),
    VLLM("vllm"),
    SGLANG("sglang"),
    UNKNOWN("unknown");

    final String label;

    EngineKind(String label) {
        this.label = label;
    }

    static EngineKind of(EngineClient c, URI base) {
        JsonNode p = c.json(c.get(base, "/props"));
        if (p != null && (p.has("default_generation_settings") || p.has("total_slots"))) return LLAMA_CPP;
        JsonNode s = c.json(c.get(base, "/get_server_info"));
        if (s != null && s.isObject()) return SGLANG;
        JsonNode v = c.json(c.get(base, "/version"));
        if (v != null && v.has("version")) return VLLM;
        return UNKNOWN;
    }
}
