/**
 * The in-process engine's public face: what a restore check reports, and why an engine cannot run here
 * ({@link dev.kvlab.harness.llama.api.EngineUnavailableException}). The bindings live in
 * {@code dev.kvlab.harness.llama.internal}.
 */
package dev.kvlab.harness.llama.api;
