/**
 * GGUF model files: synthesizing a Llama-architecture model with seeded random weights and a tokenizer whose words
 * are single tokens ({@link dev.kvlab.harness.api.gguf.GgufSynth}, {@link dev.kvlab.harness.api.gguf.SynthSpec},
 * {@link dev.kvlab.harness.api.gguf.SynthVocabulary}), and reading any GGUF file's shape and KV size
 * ({@link dev.kvlab.harness.api.gguf.GgufModelInfo}).
 */
package dev.kvlab.harness.api.gguf;
