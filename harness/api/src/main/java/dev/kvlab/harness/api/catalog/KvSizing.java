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
 * @param tp                tensor-parallel degree (1..{@value #MAX_TP})
 *
 * <p>All arithmetic is exact: a size that does not fit 64 bits throws {@link ArithmeticException} (per token: already
 * at construction, as {@link IllegalArgumentException}), never wraps to a negative figure.
 */
public record KvSizing(KvShape shape, Dtype dtype, int tp) {

    public KvSizing {
        if (shape == null || dtype == null) throw new IllegalArgumentException("shape and dtype are required");
        if (tp < 1 || tp > MAX_TP) throw new IllegalArgumentException("tp must be 1.." + MAX_TP + ", got " + tp);
        if (!shape.isMla()) {
            int h = shape.kvHeads();
            if (tp <= h ? h % tp != 0 : tp % h != 0)
                throw new IllegalArgumentException("tp " + tp + " does not divide the " + h
                        + " KV heads evenly (nor is a multiple of them): KV heads cannot be laid out on the ranks");
        }
        try {
            Math.multiplyExact(
                    Math.multiplyExact(Math.multiplyExact((long) shape.layers(), shape.valuesPerTokenLayer()), (long)
                            dtype.bytes()),
                    (long) tp);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(
                    "the KV of one token (" + shape.layers() + " layers x " + shape.valuesPerTokenLayer() + " values x "
                            + dtype.bytes() + " bytes, on " + tp + " ranks) does not fit 64 bits");
        }
    }

    /** The largest tensor-parallel degree accepted. */
    public static final int MAX_TP = 4096;

    public static KvSizing of(ModelSpec model, Dtype dtype, int tp) {
        return new KvSizing(model.kvShape(), dtype, tp);
    }

    /** The model's KV for one token, all layers, all heads, counted once. */
    public long bytesPerToken() {
        return Math.multiplyExact(
                Math.multiplyExact((long) shape.layers(), shape.valuesPerTokenLayer()), (long) dtype.bytes());
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
        return Math.multiplyExact(
                Math.multiplyExact(
                        Math.multiplyExact((long) shape.layers(), 2L * kvHeadsPerRank()), (long) shape.headDim()),
                (long) dtype.bytes());
    }

    /** What all ranks together hold for one token (>= {@link #bytesPerToken()} when KV is replicated). */
    public long bytesPerTokenAllRanks() {
        return Math.multiplyExact(bytesPerTokenPerRank(), (long) tp);
    }

    public long bytesPerRequest(long tokens) {
        return Math.multiplyExact(bytesPerToken(), tokens);
    }

    public long bytesPerRequestPerRank(long tokens) {
        return Math.multiplyExact(bytesPerTokenPerRank(), tokens);
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
        return Math.multiplyExact(bytesPerToken(), (long) blockTokens);
    }

    public long blockBytesPerRank(int blockTokens) {
        return Math.multiplyExact(bytesPerTokenPerRank(), (long) blockTokens);
    }
}
