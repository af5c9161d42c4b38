package dev.kvlab.harness.llama.internal.realkv;

/**
 * Where a real engine's KV blocks live in the store: every key names the model file's SHA-256, the KV dtype, how V is
 * laid out ({@code v}: a row per token; {@code vt}: transposed, as llama.cpp keeps it with flash attention off) and
 * the block size, then the block's chained key (which the workload derives from the same namespace), so two models,
 * dtypes, V layouts or block sizes never share a key.
 *
 * @param modelSha256 hex SHA-256 of the GGUF file
 * @param kvDtype     the context's KV dtype ({@code f16}, ...)
 * @param vTransposed the context keeps V transposed
 * @param blockTokens tokens per block
 */
record KvNamespace(String modelSha256, String kvDtype, boolean vTransposed, int blockTokens) {

    /** The store key of the block whose chained key is {@code blockKey}. */
    String key(long blockKey) {
        return "kv/" + modelSha256 + "/" + kvDtype + "/" + (vTransposed ? "vt" : "v") + "/b" + blockTokens + "/"
                + Long.toHexString(blockKey);
    }

    /** The model id block keys are chained from. */
    String modelId() {
        return "gguf-sha256-" + modelSha256;
    }
}
