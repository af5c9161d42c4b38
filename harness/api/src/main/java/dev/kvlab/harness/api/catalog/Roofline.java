package dev.kvlab.harness.api.catalog;

/**
 * GPU time of a forward pass from the roofline: {@code max(compute, memory)} where compute is FLOPs over
 * (peak FLOP/s × TP × prefill MFU) and memory is bytes moved over (HBM bandwidth × TP × decode bandwidth
 * utilisation). FLOPs are the linear part, {@code 2 × active parameters} per token, plus causal attention:
 * each (query, key) pair costs {@code 2 × heads × (qk_dim + v_dim)} per layer, so a prefix of {@code n} tokens
 * has {@code n(n+1)/2} pairs and long prefixes cost more per token. Bytes are the weights (read once per
 * forward pass) plus the KV read (context) and written (new tokens). A hardware entry with an {@link AttentionCost}
 * runs the attention FLOPs at their own rate (its efficiency × the compute rate, by the pass's length); without one
 * they run at the compute rate. Tensor-parallel communication is not modelled. Pure and immutable.
 */
public final class Roofline {

    private final ModelSpec model;
    private final HardwareSpec hw;
    private final KvSizing kv;
    private final int tp;
    private final double flopsPerSecond;
    private final double bytesPerSecond;
    private final double flopsPerPair;
    private final double weightBytes;
    private final AttentionCost attention;

    public Roofline(ModelSpec model, HardwareSpec hardware, KvSizing kv) {
        this.model = model;
        this.hw = hardware;
        this.kv = kv;
        this.tp = kv.tp();
        this.flopsPerSecond = hardware.flopsFor(model.weightDtype()) * tp * hardware.prefillMfu();
        this.bytesPerSecond = hardware.hbmBandwidth() * tp * hardware.decodeBandwidthUtilization();
        this.flopsPerPair = 2.0 * model.attentionHeads() * (model.qkDim() + model.vDim()) * model.layers();
        this.weightBytes = model.weightBytes();
        this.attention = hardware.attention();
    }

    public ModelSpec model() {
        return model;
    }

    public HardwareSpec hardware() {
        return hw;
    }

    public KvSizing kv() {
        return kv;
    }

    /** Bytes of weights the whole TP group holds (and reads once per forward pass). */
    public double weightBytes() {
        return weightBytes;
    }

    /** Linear FLOPs for {@code tokens} tokens. */
    public double linearFlops(double tokens) {
        return 2.0 * model.activeParams() * tokens;
    }

    /** Causal (query, key) pairs when {@code tokens} new tokens follow {@code context} cached ones. */
    public static double causalPairs(double tokens, double context) {
        return tokens * context + tokens * (tokens + 1) / 2.0;
    }

    public double attentionFlops(double pairs) {
        return pairs * flopsPerPair;
    }

    /**
     * Seconds for one forward pass computing {@code tokens} tokens with {@code pairs} attention pairs, reading
     * {@code kvReadTokens} tokens of KV and writing {@code kvWriteTokens}.
     */
    public double passSeconds(double tokens, double pairs, double kvReadTokens, double kvWriteTokens) {
        return passSeconds(tokens, pairs, kvReadTokens, kvWriteTokens, Double.NaN);
    }

    /**
     * {@link #passSeconds(double, double, double, double)} on an engine whose shared KV stream holds {@code usedCells}
     * cells in use at the pass (NaN: unknown, the stream's span at load; ignored without a shared stream): see
     * {@link AttentionCost#pairs(double, double, double)}.
     */
    public double passSeconds(
            double tokens, double pairs, double kvReadTokens, double kvWriteTokens, double usedCells) {
        return combined(computeSeconds(tokens, pairs, usedCells), memorySeconds(kvReadTokens, kvWriteTokens));
    }

    /** A pass's time from its compute and memory time: their sum where the engine does not overlap them, else the larger. */
    private double combined(double compute, double memory) {
        if (attention != null && attention.sumComputeMemory()) return compute + memory;
        return Math.max(compute, memory);
    }

    /** Compute seconds of a pass of {@code tokens} tokens with {@code pairs} attention pairs. */
    public double computeSeconds(double tokens, double pairs) {
        return computeSeconds(tokens, pairs, Double.NaN);
    }

    /** {@link #computeSeconds(double, double)} with the shared stream's cells in use known (NaN: unknown). */
    public double computeSeconds(double tokens, double pairs, double usedCells) {
        // x * 1 / 1 is exactly x: without an AttentionCost (or without its span and shared stream) the sum is the one
        // the
        // roofline always had, bit for bit
        double efficiency = 1, factor = 1;
        if (attention != null) {
            efficiency = attention.efficiencyAt(tokens);
            factor = attention.passFactor(tokens) * attention.tileFactor(tokens); // 1 without a span or tiles
            pairs = attention.pairs(
                    tokens, pairs,
                    usedCells); // a shared stream: every token spans its used cells; else its own causal pairs
        }
        return (linearFlops(tokens) + attentionFlops(pairs) * factor / efficiency) / flopsPerSecond;
    }

    /** Seconds to load the KV of {@code tokens} tokens fetched into one rank (0 without a {@link KvLoadCost}). */
    public double kvLoadSeconds(double tokens) {
        KvLoadCost l = hw.kvLoad();
        return l == null || tokens <= 0 ? 0 : l.seconds(tokens * kv.bytesPerTokenPerRank());
    }

    /**
     * Seconds a pass with {@code rows} output rows (tokens whose logits are wanted) costs beyond the same pass with one
     * ({@link OutputRowsCost}; 0 without one: every output row is then in the pass's linear work).
     */
    public double outputRowsSeconds(double rows) {
        OutputRowsCost o = hw.outputRows();
        return o == null ? 0 : o.extraSeconds(rows);
    }

    /** The part of {@link #kvLoadSeconds} an engine does off its engine thread ({@link KvLoadCost#assembly}; 0 without). */
    public double kvAssemblySeconds(double tokens) {
        KvLoadCost l = hw.kvLoad();
        return l == null || tokens <= 0 ? 0 : l.assemblySeconds(tokens * kv.bytesPerTokenPerRank());
    }

    public double memorySeconds(double kvReadTokens, double kvWriteTokens) {
        return (weightBytes + (kvReadTokens + kvWriteTokens) * kv.bytesPerTokenAllRanks()) / bytesPerSecond;
    }

    /** Seconds to prefill {@code tokens} tokens after {@code context} cached ones, alone on the GPUs. */
    public double prefillSeconds(long tokens, long context) {
        if (tokens <= 0) return 0;
        return passSeconds(tokens, causalPairs(tokens, context), context, tokens);
    }

    /** Seconds of one decode step of a batch whose sequences hold {@code contextTokens} tokens in total. */
    public double decodeStepSeconds(int batch, long contextTokens) {
        return passSeconds(batch, contextTokens + batch, contextTokens, batch);
    }

    /** FLOP/s the roofline assumes for compute (peak × TP × MFU). */
    public double effectiveFlops() {
        return flopsPerSecond;
    }

    /** Bytes/s the roofline assumes for memory traffic (HBM × TP × utilisation). */
    public double effectiveBandwidth() {
        return bytesPerSecond;
    }

    /** Per-pair attention FLOPs over all layers. */
    public double flopsPerPair() {
        return flopsPerPair;
    }

    /** Whether a pass's attention spans a shared KV stream ({@code attention.kv_cells}): only then do the cells in use matter. */
    public boolean sharedStream() {
        return attention != null && attention.kvCells() > 0;
    }

    /**
     * Whether each sequence's attention in a pass runs as a kernel of its own, at the efficiency (and span factor) of
     * that sequence's query rows, not the pass's tokens: an engine with an {@link AttentionCost} and a KV stream per
     * sequence (llama.cpp's {@code kv_unified = false}, as llama-server runs with {@code -np}: a step of four sequences'
     * decode tokens is four one-row attentions, each on the short-pass kernel; measured on a 4-layer model at 1,090
     * tokens of context, 1.8, 3.8, 5.4 and 7.3 ms for steps of 1 to 4 such tokens). Not with a shared stream, whose
     * pass is one attention over its cells.
     */
    public boolean ownStreamKernels() {
        return attention != null && !sharedStream();
    }

    /**
     * One sequence's attention in a pass of an engine with {@link #ownStreamKernels}: {@code pairs} causal pairs of
     * {@code rows} query rows, as pairs at the compute rate (× the span factor, / the efficiency at {@code rows}).
     */
    public double ownStreamPairs(double rows, double pairs) {
        if (attention == null) return pairs;
        return pairs * attention.passFactor(rows) * attention.tileFactor(rows) / attention.efficiencyAt(rows);
    }

    /**
     * A pass of {@code tokens} tokens whose attention is {@code ratedPairs} pairs at the compute rate (the sum of its
     * sequences' {@link #ownStreamPairs}), reading {@code kvReadTokens} and writing {@code kvWriteTokens} of KV.
     */
    public double passSecondsRated(double tokens, double ratedPairs, double kvReadTokens, double kvWriteTokens) {
        return combined(
                (linearFlops(tokens) + attentionFlops(ratedPairs)) / flopsPerSecond,
                memorySeconds(kvReadTokens, kvWriteTokens));
    }

    /**
     * One step of an engine with {@link #ownStreamKernels} over {@code n} sequences' parts ({@code rows[i]} new tokens
     * after {@code context[i]} cells of sequence i), run as llama.cpp runs a batch over a KV stream per sequence: split
     * into micro-batches of equal parts ({@code split_equal}: every sequence with rows left gives as many as the one with
     * fewest, the rest go on in the next), each a pass of its own (its weights read again) in which every sequence's
     * attention spans the widest participant's cells (the streams of one micro-batch share one view of the cache, the
     * shorter ones masked). Measured on a 4-layer model: a prompt chunk of 382 rows sharing a step with another
     * sequence's 129 rows behind 959 cells cost 18 ms more than the two alone, as the 129 shared rows of the first span
     * the second's 1,088 cells. One sequence alone: {@link #passSecondsRated} of its causal pairs.
     */
    public double ownStreamStepSeconds(double[] rows, double[] context, int n) {
        double[] left = rows.clone(), at = context.clone();
        double seconds = 0;
        while (true) {
            int m = 0;
            double k = Double.MAX_VALUE, span = 0;
            for (int i = 0; i < n; i++) {
                if (!(left[i] > 0)) continue;
                m++;
                k = Math.min(k, left[i]);
            }
            if (m == 0) return seconds;
            for (int i = 0; i < n; i++) if (left[i] > 0) span = Math.max(span, at[i] + k);
            double rated = 0, read = 0;
            for (int i = 0; i < n; i++) {
                if (!(left[i] > 0)) continue;
                double pairs = m == 1 ? causalPairs(k, at[i]) : k * span;
                rated += ownStreamPairs(k, pairs);
                read += at[i];
                at[i] += k;
                left[i] -= k;
            }
            seconds += passSecondsRated(k * m, rated, read, k * m);
        }
    }

    /** Whether attention runs at the compute rate (no {@link AttentionCost}): the closed forms on FLOPs hold. */
    public boolean attentionAtComputeRate() {
        return attention == null;
    }
}
