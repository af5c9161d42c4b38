package dev.kvlab.harness.api.config;

/**
 * Continuous batching on each instance.
 *
 * @param maxBatchTokens    token budget of one iteration (prefill tokens + one per decoding sequence) [8192]
 * @param maxRunning        sequences admitted at once [256]
 * @param chunkedPrefill    split prefills to fill the budget next to decodes (else an iteration prefills or decodes) [true]
 * @param kvMemoryFraction  share of HBM for weights + KV (the rest is activations and runtime) [0.9]
 */
public record SchedulerConfig(int maxBatchTokens, int maxRunning, boolean chunkedPrefill, double kvMemoryFraction) {

    /** Refuses a budget or a sequence cap below 1 and a memory share outside (0, 1]. */
    public void check(ConfigCheck check) {
        check.atLeast("scheduler.max_batch_tokens", maxBatchTokens, 1);
        check.atLeast("scheduler.max_running", maxRunning, 1);
        check.fraction("scheduler.kv_memory_fraction", kvMemoryFraction);
    }
}
