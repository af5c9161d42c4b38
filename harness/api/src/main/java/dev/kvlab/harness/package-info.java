/**
 * harness/api's entry points: the classes that build its implementations ({@code dev.kvlab.harness.internal.*}) behind
 * what its api packages declare. {@link dev.kvlab.harness.Gguf} reads and synthesizes GGUF model files;
 * {@link dev.kvlab.harness.Catalogs} reads the model and hardware catalog files and answers the questions that need them.
 */
package dev.kvlab.harness;
