package dev.kvlab.harness.api.config;

/**
 * Continuous batching on each instance.
 *
 * @param maxBatchTokens    token budget of one iteration (prefill tokens + one per decoding sequence) [8192]
 * @param maxRunning        sequences admitted at once [256]
 * @param chunkedPrefill    split prefills to fill the budget next to decodes (else an iteration prefills or decodes) [true]
 * @param kvMemoryFraction  share of HBM for weights + KV (the rest is activations and runtime) [0.9]
 * @param cacheChunks       with a local tier, a prompt's full blocks join the prefix cache as each chunk of it is
 *                          computed, so that a prompt of the same prefix admitted meanwhile hits them (vLLM V1 caches a
 *                          block once computed, and the llama.cpp target keeps its blocks chunk by chunk: its twin sets
 *                          this); false: when the whole prompt is [false: results of earlier versions stay as they were]
 */
public record SchedulerConfig(
        int maxBatchTokens, int maxRunning, boolean chunkedPrefill, double kvMemoryFraction, boolean cacheChunks) {

    /** Blocks join the prefix cache at the prompt's end. */
    public SchedulerConfig(int maxBatchTokens, int maxRunning, boolean chunkedPrefill, double kvMemoryFraction) {
        this(maxBatchTokens, maxRunning, chunkedPrefill, kvMemoryFraction, false);
    }

    /** Refuses a budget or a sequence cap below 1 and a memory share outside (0, 1]. */
    public void check(ConfigCheck check) {
        check.atLeast("scheduler.max_batch_tokens", maxBatchTokens, 1);
        check.atLeast("scheduler.max_running", maxRunning, 1);
        check.fraction("scheduler.kv_memory_fraction", kvMemoryFraction);
    }
}
