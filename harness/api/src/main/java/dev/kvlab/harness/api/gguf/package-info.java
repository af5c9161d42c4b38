/**
 * GGUF model files as their users see them: a synthesized Llama-architecture model's shape
 * ({@link dev.kvlab.harness.api.gguf.SynthSpec}, {@link dev.kvlab.harness.api.gguf.WeightType}), its tokenizer whose
 * words are single tokens ({@link dev.kvlab.harness.api.gguf.SynthVocabulary}), what was written
 * ({@link dev.kvlab.harness.api.gguf.SynthResult}, {@link dev.kvlab.harness.api.gguf.SynthReport}), and any GGUF file's
 * shape and KV size ({@link dev.kvlab.harness.api.gguf.GgufModelInfo}, its facts as reported: {@link dev.kvlab.harness.api.gguf.GgufFacts}). The files are read and written through the
 * entry {@link dev.kvlab.harness.Gguf}.
 */
package dev.kvlab.harness.api.gguf;
