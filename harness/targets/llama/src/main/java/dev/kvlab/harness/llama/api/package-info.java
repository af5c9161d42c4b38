/**
 * The in-process engine's public face: what a restore check reports ({@link dev.kvlab.harness.llama.api.RestoreCheckResult}),
 * what the engine's benchmarks and calibration give ({@link dev.kvlab.harness.llama.api.BenchReport},
 * {@link dev.kvlab.harness.llama.api.EngineCatalog}), and why an engine cannot run here
 * ({@link dev.kvlab.harness.llama.api.EngineUnavailableException}). The entry point is {@code dev.kvlab.harness.llama.LlamaCpp};
 * the bindings live in {@code dev.kvlab.harness.llama.internal}.
 */
package dev.kvlab.harness.llama.api;
