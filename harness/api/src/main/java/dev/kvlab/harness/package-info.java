/**
 * harness/api's entry points: the classes that build its implementations ({@code dev.kvlab.harness.internal.*}) behind
 * what its api packages declare. {@link dev.kvlab.harness.Gguf} reads and synthesizes GGUF model files.
 */
package dev.kvlab.harness;
