/** GGUF (v3) reading and writing, and the synthesized Llama model's tensors and tokenizer; not an API. */
package dev.kvlab.harness.internal.gguf;
