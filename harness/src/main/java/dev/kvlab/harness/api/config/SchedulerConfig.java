package dev.kvlab.harness.api.config;

/**
 * Continuous batching on each instance.
 *
 * @param maxBatchTokens    token budget of one iteration (prefill tokens + one per decoding sequence) [8192]
 * @param maxRunning        sequences admitted at once [256]
 * @param chunkedPrefill    split prefills to fill the budget next to decodes (else an iteration prefills or decodes) [true]
 * @param kvMemoryFraction  share of HBM for weights + KV (the rest is activations and runtime) [0.9]
 */
public record SchedulerConfig(int maxBatchTokens, int maxRunning, boolean chunkedPrefill, double kvMemoryFraction) {}
