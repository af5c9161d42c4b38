package dev.kvlab.harness.api.catalog;

import dev.kvlab.harness.api.gguf.GgufModelInfo;
import java.util.List;
import java.util.Locale;

/**
 * One model's published architecture, as the catalog holds it. Validated on construction.
 *
 * @param id               stable lower-case id, e.g. {@code llama-3-8b}
 * @param name             display name
 * @param aliases          other accepted names (matched case-insensitively)
 * @param source           where the figures come from
 * @param layers           transformer layers
 * @param hiddenSize       model width
 * @param attentionHeads   query heads
 * @param kvHeads          key/value heads (GQA < attention heads, MHA = attention heads; MLA: 1 shared latent)
 * @param headDim          per-head Q/K dimension (MLA: the non-rotary part)
 * @param vHeadDim         per-head V dimension when it differs from {@code headDim}, else null
 * @param mlaRank          MLA latent rank (kv_lora_rank), or null when the model has no MLA
 * @param ropeDim          MLA decoupled rotary key dimension, or null
 * @param parameters       total parameters
 * @param activeParameters parameters active per token (MoE), or null when all are
 * @param weightDtype      weights as served
 * @param maxContext       maximum context length in tokens
 */
public record ModelSpec(
        String id,
        String name,
        List<String> aliases,
        String source,
        int layers,
        int hiddenSize,
        int attentionHeads,
        int kvHeads,
        int headDim,
        Integer vHeadDim,
        Integer mlaRank,
        Integer ropeDim,
        double parameters,
        Double activeParameters,
        Dtype weightDtype,
        int maxContext) {

    public ModelSpec {
        if (id == null || id.isBlank()) throw new IllegalArgumentException("a model needs an id");
        id = id.strip().toLowerCase(Locale.ROOT);
        if (name == null || name.isBlank()) name = id;
        aliases = aliases == null ? List.of() : List.copyOf(aliases);
        if (source == null) source = "";
        if (weightDtype == null) weightDtype = Dtype.BF16;
        positive("layers", layers);
        positive("hidden_size", hiddenSize);
        positive("attention_heads", attentionHeads);
        positive("kv_heads", kvHeads);
        positive("head_dim", headDim);
        positive("max_context", maxContext);
        if (vHeadDim != null) positive("v_head_dim", vHeadDim);
        if ((mlaRank == null) != (ropeDim == null))
            throw new IllegalArgumentException("model " + id + ": mla_rank and rope_dim go together (both or neither)");
        if (mlaRank != null) {
            positive("mla_rank", mlaRank);
            if (ropeDim < 0) throw new IllegalArgumentException("model " + id + ": rope_dim must be >= 0");
        } else if (kvHeads > attentionHeads || attentionHeads % kvHeads != 0) {
            throw new IllegalArgumentException("model " + id + ": attention_heads (" + attentionHeads
                    + ") must be a multiple of kv_heads (" + kvHeads + ")");
        }
        if (!(parameters > 0)) throw new IllegalArgumentException("model " + id + ": parameters must be > 0");
        if (activeParameters != null && !(activeParameters > 0 && activeParameters <= parameters))
            throw new IllegalArgumentException("model " + id + ": active_parameters must be in (0, parameters]");
    }

    private static void positive(String what, int v) {
        if (v <= 0) throw new IllegalArgumentException(what + " must be > 0, got " + v);
    }

    public boolean isMla() {
        return mlaRank != null;
    }

    /** {@code mla}, {@code mha} (one KV head per query head) or {@code gqa}. */
    public String attentionKind() {
        return isMla() ? "mla" : kvHeads == attentionHeads ? "mha" : "gqa";
    }

    /** Bytes of all the weights as served (every rank's share together). */
    public double weightBytes() {
        return parameters * weightDtype.bytes();
    }

    /** Parameters that take part in each token's forward pass. */
    public double activeParams() {
        return activeParameters == null ? parameters : activeParameters;
    }

    /** The KV cache's shape for sizing. */
    public KvShape kvShape() {
        return isMla() ? KvShape.mla(layers, mlaRank, ropeDim) : KvShape.heads(layers, kvHeads, headDim);
    }

    /** Per-head width of the Q·K dot product (MLA: non-rotary plus rotary part). */
    public int qkDim() {
        return isMla() ? headDim + ropeDim : headDim;
    }

    public int vDim() {
        return vHeadDim == null ? headDim : vHeadDim;
    }

    /** True when {@code text} names this model (id, name or alias, case-insensitive). */
    public boolean answersTo(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.equals(id) || t.equals(name.toLowerCase(Locale.ROOT))) return true;
        for (String a : aliases) if (t.equals(a.toLowerCase(Locale.ROOT))) return true;
        return false;
    }

    /**
     * The catalog model of a GGUF file's shape ({@code kvlab calibrate --engine} and {@code --endpoint} fit a roofline to it):
     * {@code gguf-<sha256 prefix>}, weights at the file's dtype (q8_0: about one byte per weight, as FP8).
     */
    public static ModelSpec ofGguf(GgufModelInfo info) {
        Dtype w = switch (info.fileType()) {
            case 0 -> Dtype.FP32;
            case 7 -> Dtype.FP8; // q8_0: about one byte per weight
            default -> Dtype.FP16;
        };
        String file = info.path().getFileName().toString().replaceAll("\\.gguf$", "");
        return new ModelSpec(
                "gguf-" + info.sha256().substring(0, 12),
                info.name() == null || info.name().isBlank() ? file : info.name(),
                List.of(file),
                "GGUF header of " + info.path().getFileName() + " (sha256 " + info.sha256() + ")",
                info.layers(),
                info.hidden(),
                info.heads(),
                info.kvHeads(),
                info.keyLength(),
                info.valueLength() == info.keyLength() ? null : info.valueLength(),
                null,
                null,
                (double) info.parameters(),
                null,
                w,
                (int) Math.min(Integer.MAX_VALUE, Math.max(1, info.contextLength())));
    }
}
