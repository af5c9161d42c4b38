package dev.kvlab.harness.api.gguf;

import dev.kvlab.harness.api.input.BadInputException;

/**
 * The shape of a synthesized Llama-architecture model: layers, hidden size, attention heads, KV heads (GQA), the
 * feed-forward size, the vocabulary, the weight type, the seed of its random weights and its context length.
 * Construction validates the shape llama.cpp will accept and refuses anything else with {@link BadInputException}.
 */
public record SynthSpec(
        int layers, int hidden, int heads, int kvHeads, int ff, int vocab, WeightType dtype, long seed, int context) {

    public static final int DEFAULT_VOCAB = 32_000;
    public static final int DEFAULT_CONTEXT = 8192;
    /** llama.cpp's LLAMA_MAX_LAYERS. */
    public static final int MAX_LAYERS = 512;

    static final int MAX_WIDTH = 1 << 20;
    static final int MAX_VOCAB = 1 << 24;

    public SynthSpec {
        positive("layers", layers);
        positive("hidden", hidden);
        positive("heads", heads);
        positive("kv-heads", kvHeads);
        positive("ff", ff);
        positive("vocab", vocab);
        positive("context", context);
        if (dtype == null) throw new BadInputException("dtype is required (f16 or q8_0)");
        if (layers > MAX_LAYERS)
            throw new BadInputException("layers " + layers + " is above llama.cpp's limit of " + MAX_LAYERS);
        if (hidden > MAX_WIDTH || ff > MAX_WIDTH)
            throw new BadInputException("hidden and ff must be at most " + MAX_WIDTH);
        if (vocab > MAX_VOCAB) throw new BadInputException("vocab must be at most " + MAX_VOCAB);
        if (hidden % heads != 0)
            throw new BadInputException(
                    "hidden " + hidden + " is not divisible by heads " + heads + " (head_dim = hidden / heads)");
        if (heads % kvHeads != 0)
            throw new BadInputException("heads " + heads + " is not divisible by kv-heads " + kvHeads
                    + " (each KV head serves heads / kv-heads query heads)");
        if ((hidden / heads) % 2 != 0)
            throw new BadInputException("head_dim " + hidden / heads + " (hidden " + hidden + " / heads " + heads
                    + ") is odd: RoPE rotates pairs");
        if (dtype == WeightType.Q8_0 && (hidden % 32 != 0 || ff % 32 != 0))
            throw new BadInputException("q8_0 stores rows in blocks of 32: hidden " + hidden + " and ff " + ff
                    + " must be multiples of 32");
        SynthVocabulary.of(vocab);
    }

    /** A spec with the defaults: vocab 32000, f16, seed 0, context 8192. */
    public static SynthSpec of(int layers, int hidden, int heads, int kvHeads, int ff) {
        return new SynthSpec(layers, hidden, heads, kvHeads, ff, DEFAULT_VOCAB, WeightType.F16, 0, DEFAULT_CONTEXT);
    }

    public int headDim() {
        return hidden / heads;
    }

    /** Weights per layer: attention (q, k, v, output), the gated FFN (gate, up, down) and two norms. */
    public long layerParameters() {
        long kvDim = (long) kvHeads * headDim();
        return 2L * hidden * hidden + 2L * hidden * kvDim + 3L * hidden * ff + 2L * hidden;
    }

    /** All weights: embeddings, layers, output norm and output projection. */
    public long parameters() {
        return 2L * vocab * hidden + layers * layerParameters() + hidden;
    }

    /** KV cache bytes per token at llama.cpp's default f16 cache: layers × 2 × kv_heads × head_dim × 2. */
    public long kvBytesPerToken() {
        return (long) layers * 2 * kvHeads * headDim() * 2;
    }

    public SynthVocabulary vocabulary() {
        return SynthVocabulary.of(vocab);
    }

    /** {@code general.name}: the shape and seed, e.g. {@code kvlab-synth-L4-H256-N8-K2-F688-V32000-f16-s7}. */
    public String name() {
        return "kvlab-synth-L" + layers + "-H" + hidden + "-N" + heads + "-K" + kvHeads + "-F" + ff + "-V" + vocab + "-"
                + dtype + "-s" + seed;
    }

    private static void positive(String what, int v) {
        if (v <= 0) throw new BadInputException(what + " must be positive, got " + v);
    }
}
