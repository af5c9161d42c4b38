package dev.kvlab.harness.internal.realkv;

/**
 * Where a real engine's KV blocks live in the store: every key names the model file's SHA-256, the KV dtype and the
 * block size, then the block's chained key (which the workload derives from the same namespace), so two models,
 * dtypes or block sizes never share a key.
 *
 * @param modelSha256 hex SHA-256 of the GGUF file
 * @param kvDtype     the context's KV dtype ({@code f16}, ...)
 * @param blockTokens tokens per block
 */
record KvNamespace(String modelSha256, String kvDtype, int blockTokens) {

    /** The store key of the block whose chained key is {@code blockKey}. */
    String key(long blockKey) {
        return "kv/" + modelSha256 + "/" + kvDtype + "/b" + blockTokens + "/" + Long.toHexString(blockKey);
    }

    /** The model id block keys are chained from. */
    String modelId() {
        return "gguf-sha256-" + modelSha256;
    }
}
