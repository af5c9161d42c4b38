package dev.kvlab.harness.internal.openai;

import java.util.List;

/** The result columns of a real engine's own counters, named once: summary rows, {@code --json} and the report read them from here. */
public final class EngineColumns {

    /** Prompt tokens of the measured requests by the engine's usage (NaN: not reported by every response). */
    public static final String PROMPT_TOKENS = "engine_prompt_tokens";
    /** Of them, served from the engine's cache, as the engine reported per response (NaN with the reason where it did not). */
    public static final String CACHED_PROMPT_TOKENS = "engine_cached_prompt_tokens";
    /** The engine's local prefix-cache hit ratio over the measured phase (NaN: not reported). */
    public static final String LOCAL_HIT_RATIO = "engine_local_hit_ratio";
    /** The engine's external (connector: LMCache, Mooncake) hit ratio over the measured phase (NaN: not reported). */
    public static final String EXTERNAL_HIT_RATIO = "engine_external_hit_ratio";
    /**
     * p50 over requests of client TTFT minus the engine's own prompt time: what the harness and the network add, and
     * the engine's work outside its prompt time (reading and tokenizing the request, sampling the first token).
     */
    public static final String TTFT_GAP_P50 = "harness_ttft_gap_p50_ms";
    /** p50 TTFT of the harness's loopback self-test before the cell ({@link ClientWarmup}): what the harness itself adds (µs). */
    public static final String LOOPBACK_TTFT_P50 = "harness_loopback_ttft_p50_us";

    /** The numeric ones, as summary columns. */
    public static final List<String> ROW = List.of(PROMPT_TOKENS, CACHED_PROMPT_TOKENS, LOCAL_HIT_RATIO, EXTERNAL_HIT_RATIO, TTFT_GAP_P50, LOOPBACK_TTFT_P50);

    private EngineColumns() {}
}
