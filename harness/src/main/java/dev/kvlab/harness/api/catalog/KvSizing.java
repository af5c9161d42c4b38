package dev.kvlab.harness.api.catalog;

/**
 * How many bytes a model's KV cache takes, counted once and per tensor-parallel rank.
 *
 * <p>GQA/MHA: {@code 2 (K and V) × layers × kv_heads × head_dim × dtype bytes} per token. Under TP the KV heads
 * are split across ranks; when TP exceeds the KV head count every rank still needs one head, so heads are
 * replicated ({@code tp / kv_heads} copies of each) and a rank holds {@code max(1, kv_heads / tp)} heads.
 * MLA: {@code layers × (rank + rope_dim) × dtype bytes}; the latent is shared by all heads, so every rank holds
 * all of it (replicated {@code tp} times, never split).
 *
 * @param shape             what is cached
 * @param dtype             KV dtype
 * @param tp                tensor-parallel degree (>= 1)
 */
public record KvSizing(KvShape shape, Dtype dtype, int tp) {

    public KvSizing {
        if (shape == null || dtype == null) throw new IllegalArgumentException("shape and dtype are required");
        if (tp < 1) throw new IllegalArgumentException("tp must be >= 1, got " + tp);
        if (!shape.isMla()) {
            int h = shape.kvHeads();
            if (tp <= h ? h % tp != 0 : tp % h != 0)
                throw new IllegalArgumentException("tp " + tp + " does not divide the " + h
                        + " KV heads evenly (nor is a multiple of them): KV heads cannot be laid out on the ranks");
        }
    }

    public static KvSizing of(ModelSpec model, Dtype dtype, int tp) {
        return new KvSizing(model.kvShape(), dtype, tp);
    }

    /** The model's KV for one token, all layers, all heads, counted once. */
    public long bytesPerToken() {
        return shape.layers() * shape.valuesPerTokenLayer() * dtype.bytes();
    }

    /** KV heads one rank holds (MLA: 0, the latent is not split into heads). */
    public int kvHeadsPerRank() {
        if (shape.isMla()) return 0;
        return Math.max(1, shape.kvHeads() / tp);
    }

    /** How many ranks hold each piece of KV: {@code tp / kv_heads} when TP exceeds the heads, {@code tp} for MLA, else 1. */
    public int replication() {
        if (shape.isMla()) return tp;
        return Math.max(1, tp / shape.kvHeads());
    }

    /** What one TP rank holds for one token. */
    public long bytesPerTokenPerRank() {
        if (shape.isMla()) return bytesPerToken();
        return (long) shape.layers() * 2L * kvHeadsPerRank() * shape.headDim() * dtype.bytes();
    }

    /** What all ranks together hold for one token (>= {@link #bytesPerToken()} when KV is replicated). */
    public long bytesPerTokenAllRanks() {
        return bytesPerTokenPerRank() * tp;
    }

    public long bytesPerRequest(long tokens) {
        return bytesPerToken() * tokens;
    }

    public long bytesPerRequestPerRank(long tokens) {
        return bytesPerTokenPerRank() * tokens;
    }

    /** Tokens whose KV (counted once) fits one GiB. */
    public double tokensPerGiB() {
        return (double) (1L << 30) / bytesPerToken();
    }

    /** Tokens whose per-rank KV fits one GiB of one rank's memory. */
    public double tokensPerGiBPerRank() {
        return (double) (1L << 30) / bytesPerTokenPerRank();
    }

    /** Bytes of one block of {@code blockTokens} tokens, counted once (what a store holds per block key). */
    public long blockBytes(int blockTokens) {
        return bytesPerToken() * blockTokens;
    }

    public long blockBytesPerRank(int blockTokens) {
        return bytesPerTokenPerRank() * blockTokens;
    }
}
