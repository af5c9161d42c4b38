package dev.kvlab.harness.api.catalog;

/**
 * What a model caches per token and layer: {@code kvHeads} key and value heads of {@code headDim} each, or (MLA)
 * one compressed latent of {@code mlaRank + ropeDim} values shared by all heads.
 */
public record KvShape(int layers, int kvHeads, int headDim, Integer mlaRank, Integer ropeDim) {

    /** The largest layer count, head count, head dimension or MLA rank accepted (far beyond any model). */
    public static final int MAX_DIMENSION = 1 << 20;

    public KvShape {
        if (layers <= 0) throw new IllegalArgumentException("layers must be > 0, got " + layers);
        if (layers > MAX_DIMENSION
                || kvHeads > MAX_DIMENSION
                || headDim > MAX_DIMENSION
                || (mlaRank != null && mlaRank > MAX_DIMENSION)
                || (ropeDim != null && ropeDim > MAX_DIMENSION))
            throw new IllegalArgumentException(
                    "layers, KV heads, head dim, MLA rank and rope dim must each be <= " + MAX_DIMENSION);
        if (mlaRank == null) {
            if (ropeDim != null) throw new IllegalArgumentException("rope_dim only applies together with an MLA rank");
            if (kvHeads <= 0) throw new IllegalArgumentException("kv heads must be > 0, got " + kvHeads);
            if (headDim <= 0) throw new IllegalArgumentException("head dim must be > 0, got " + headDim);
        } else {
            if (mlaRank <= 0) throw new IllegalArgumentException("MLA rank must be > 0, got " + mlaRank);
            if (ropeDim == null || ropeDim < 0) throw new IllegalArgumentException("MLA needs a rope dim >= 0");
        }
    }

    public static KvShape heads(int layers, int kvHeads, int headDim) {
        return new KvShape(layers, kvHeads, headDim, null, null);
    }

    public static KvShape mla(int layers, int mlaRank, int ropeDim) {
        return new KvShape(layers, 0, 0, mlaRank, ropeDim);
    }

    public boolean isMla() {
        return mlaRank != null;
    }

    /** Values cached per token and layer, all heads, K and V (MLA: the latent). */
    public long valuesPerTokenLayer() {
        return isMla() ? (long) mlaRank + ropeDim : 2L * kvHeads * headDim;
    }
}
