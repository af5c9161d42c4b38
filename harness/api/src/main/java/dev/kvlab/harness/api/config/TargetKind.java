package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The {@code target.kind} of a run config: the kinds kvlab ships and which one a config names. Which provider serves
 * a kind is {@link dev.kvlab.harness.api.run.Targets}' business; a kind named here is only a name.
 */
public final class TargetKind {

    /** The kind of a config without a {@code target} block: the emulated serving model on the sim or live clock. */
    public static final String EMULATED = "emulated";
    /** The kind of an OpenAI-compatible HTTP endpoint (vLLM, SGLang, llama-server, ...). */
    public static final String OPENAI = "openai";
    /** The kind of llama.cpp in-process, its KV blocks in kvlab's store. */
    public static final String LLAMA = "llama.cpp";

    private TargetKind() {}

    /** The kind {@code config} names ({@link #EMULATED} when it names none). */
    public static String of(RunConfig config) {
        JsonNode t = config.target();
        JsonNode k = t == null ? null : t.get("kind");
        return k == null || k.isNull() ? EMULATED : k.asText();
    }
}
