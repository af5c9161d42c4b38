/**
 * harness/api's GGUF implementation, used through the entry {@link dev.kvlab.harness.Gguf}: the binary header reader
 * ({@code GgufReader}) and the reading of a model's shape from it ({@link dev.kvlab.harness.internal.gguf.GgufModelReader}),
 * the header encoder ({@code GgufHeader}) and the synthesized model's writer
 * ({@link dev.kvlab.harness.internal.gguf.SynthModelWriter}) with its buffered, digesting output.
 */
package dev.kvlab.harness.internal.gguf;
