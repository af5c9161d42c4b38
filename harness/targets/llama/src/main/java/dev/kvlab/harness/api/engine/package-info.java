/**
 * The in-process engine's public face: what a restore check reports, and why an engine cannot run here
 * ({@link dev.kvlab.harness.api.engine.EngineUnavailableException}). The bindings live in
 * {@code dev.kvlab.harness.internal.llama}.
 */
package dev.kvlab.harness.api.engine;
