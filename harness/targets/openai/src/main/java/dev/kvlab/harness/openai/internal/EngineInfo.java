package dev.kvlab.harness.openai.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;

/**
 * What an endpoint says of itself before a cell runs: which engine serves it ({@link EngineKind}), the model's context
 * (llama.cpp's {@code /props} {@code n_ctx}, vLLM's and SGLang's {@code /v1/models} {@code max_model_len}, SGLang's
 * {@code /get_server_info} {@code context_length}) and its tensor parallelism where the engine says it (SGLang's
 * {@code tp_size}; vLLM and llama-server do not: unknown).
 *
 * @param kind          the engine
 * @param contextTokens the model's context in tokens, or -1 when the endpoint does not say
 * @param tp            GPUs per instance, or -1 when the endpoint does not say
 */
record EngineInfo(EngineKind kind, int contextTokens, int tp) {

    static EngineInfo of(EngineClient c, URI base) {
        EngineKind kind = EngineKind.of(c, base);
        int ctx = -1, tp = -1;
        if (kind == EngineKind.LLAMA_CPP) {
            JsonNode p = c.json(c.get(base, "/props"));
            if (p != null)
                ctx = positive(p.path("default_generation_settings").path("n_ctx"), positive(p.path("n_ctx"), -1));
        }
        if (kind == EngineKind.SGLANG) {
            JsonNode s = c.json(c.get(base, "/get_server_info"));
            if (s != null) {
                tp = positive(s.path("tp_size"), -1);
                ctx = positive(s.path("context_length"), -1);
            }
        }
        if (ctx < 0) {
            JsonNode m = c.json(c.get(base, "/v1/models"));
            if (m != null) ctx = positive(m.path("data").path(0).path("max_model_len"), -1);
        }
        return new EngineInfo(kind, ctx, tp);
    }

    private static int positive(JsonNode n, int otherwise) {
        return n.isNumber() && n.asLong() > 0 && n.asLong() <= Integer.MAX_VALUE ? n.asInt() : otherwise;
    }
}
