/**
 * llama.cpp in-process through Java's FFM API: the pinned prebuilt library ({@code scripts/llama-lib.sh}), its struct
 * layouts checked at load, models, contexts, batches, and a sequence's KV state split into per-block pieces and
 * assembled back ({@link dev.kvlab.harness.llama.internal.KvStateCodec}).
 */
package dev.kvlab.harness.llama.internal;
