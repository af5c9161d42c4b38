package dev.kvlab.harness.llama.internal;

import java.util.List;

/**
 * The byte layout of one sequence's KV state as {@code llama_state_seq_get_data} writes it for this llama.cpp
 * release (a plain {@code llama_kv_cache}, no cell extensions), all little-endian:
 * <pre>
 * u32 magic 0xaf143cd8, i32 seq_id, u32 n_stream,
 * per stream: u32 cell_count; for the sequence's stream (cell_count = T), then:
 *   T × (i32 pos, u32 n_seq_id = 1, i32 seq_id)                       cell metadata, 12 B per token
 *   u32 v_trans, u32 n_layer
 *   per layer: i32 k_type, u64 k_row_bytes, T × k_row_bytes            K, one row per token
 *   v_trans = 0, per layer: i32 v_type, u64 v_row_bytes, T × v_row_bytes    V, one row per token
 *   v_trans = 1, per layer: i32 v_type, u32 v_el_bytes, u32 n_embd_v,
 *                           n_embd_v × (T × v_el_bytes)                V transposed: one row per channel
 * </pre>
 * A block of {@code B} tokens is every layer's K rows for its positions, then every layer's V rows (or, transposed,
 * each channel's {@code B} elements), in this order: {@link #bytesPerToken()} × B bytes.
 *
 * @param seqId the sequence id the state was taken from (llama.cpp ignores it on restore)
 * @param nStream KV streams in the context (1 unified, else one per sequence)
 * @param stream the stream that holds the sequence
 * @param vTrans V stored transposed (flash attention off)
 * @param layers per layer row sizes and types
 */
public record KvStateLayout(int seqId, int nStream, int stream, boolean vTrans, List<Layer> layers) {
    public static final int MAGIC = 0xaf143cd8;
    static final int META_BYTES_PER_TOKEN = 12;
    static final int LAYER_HEADER_BYTES = 12;

    /**
     * One layer's K and V rows.
     *
     * @param kType ggml type of K (1 = f16)
     * @param kRowBytes bytes of one token's K row (KV heads × head dim × element size)
     * @param vType ggml type of V
     * @param vElBytes bytes of one V element
     * @param vEmbd V channels (KV heads × head dim)
     */
    public record Layer(int kType, long kRowBytes, int vType, int vElBytes, int vEmbd) {
        public long vRowBytes() {
            return (long) vElBytes * vEmbd;
        }
    }

    public KvStateLayout {
        layers = List.copyOf(layers);
        if (layers.isEmpty()) throw new IllegalArgumentException("a KV state layout needs layers");
        if (nStream < 1 || stream < 0 || stream >= nStream)
            throw new IllegalArgumentException("stream " + stream + " of " + nStream);
    }

    /**
     * The layout llama.cpp writes for a llama-style model with an f16 cache, {@code layers} layers of
     * {@code kvHeads × headDim} K and V channels, in a unified (one-stream) cache.
     */
    public static KvStateLayout f16(int layers, int kvHeads, int headDim, boolean vTrans) {
        int embd = kvHeads * headDim;
        List<Layer> ls = new java.util.ArrayList<>(layers);
        for (int i = 0; i < layers; i++) ls.add(new Layer(1, 2L * embd, 1, 2, embd));
        return new KvStateLayout(0, 1, 0, vTrans, ls);
    }

    /** KV payload bytes per token: the sum over layers of a K row and a V row. */
    public long bytesPerToken() {
        long n = 0;
        for (Layer l : layers) n += l.kRowBytes() + l.vRowBytes();
        return n;
    }

    /** Bytes before the first layer's K header: magic, seq id, stream counts, cell metadata, v_trans, n_layer. */
    long dataStart(int tokens) {
        return 4 + 4 + 4 + 4L * (stream + 1) + (long) META_BYTES_PER_TOKEN * tokens + 8;
    }

    /** Bytes of the state of {@code tokens} tokens. */
    public long stateBytes(int tokens) {
        if (tokens == 0) return 4 + 4 + 4 + 4L * nStream;
        return dataStart(tokens)
                + 2L * LAYER_HEADER_BYTES * layers.size()
                + tokens * bytesPerToken()
                + 4L * (nStream - stream - 1);
    }

    /**
     * Where the state's KV part starts for {@code tokens} tokens (its {@code v_trans} field): after the header and the
     * cell metadata, which {@link KvStateCodec#frame} can write for positions {@code 0…tokens-1} on its own.
     */
    public long kvPartOffset(int tokens) {
        return dataStart(tokens) - 8;
    }

    /** Bytes of the state's KV part for {@code tokens} tokens: v_trans, n_layer, every layer's header and rows. */
    public long kvPartBytes(int tokens) {
        return 8 + 2L * LAYER_HEADER_BYTES * layers.size() + tokens * bytesPerToken();
    }

    /** Everything in the state but the KV payload, for {@code tokens} tokens. */
    public long overheadBytes(int tokens) {
        return stateBytes(tokens) - tokens * bytesPerToken();
    }

    /** e.g. {@code 2 layers, K f16 256 B + V f16 256 B per token, V not transposed, 1 stream}. */
    public String describe() {
        Layer l0 = layers.getFirst();
        return layers.size() + " layers, K " + typeName(l0.kType()) + " " + l0.kRowBytes() + " B + V "
                + typeName(l0.vType()) + " "
                + l0.vRowBytes() + " B per token per layer, V " + (vTrans ? "transposed" : "not transposed") + ", "
                + nStream + (nStream == 1 ? " stream" : " streams");
    }

    static String typeName(int ggmlType) {
        return switch (ggmlType) {
            case 0 -> "f32";
            case 1 -> "f16";
            case 30 -> "bf16";
            case 8 -> "q8_0";
            default -> "ggml type " + ggmlType;
        };
    }
}
