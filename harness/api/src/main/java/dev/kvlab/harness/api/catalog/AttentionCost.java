package dev.kvlab.harness.api.catalog;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;

/**
 * How fast an engine runs attention, relative to the compute rate its linear layers reach (peak × MFU): a roofline
 * counts attention FLOPs per causal (query, key) pair, and an engine's attention kernels reach another rate than its
 * matrix multiplications, often a different one for short passes (decode steps and short chunks) than for long ones.
 * A forward pass of fewer than {@code smallPassTokens} tokens runs attention at {@code smallPassEfficiency} × the
 * compute rate, a longer one at {@code efficiency} ×. Measured for an engine by {@code kvlab calibrate --engine};
 * a hardware entry without it runs attention at the compute rate.
 *
 * @param efficiency          attention's rate / the compute rate, passes of {@code smallPassTokens} tokens or more (&gt; 0; may exceed 1)
 * @param smallPassEfficiency the same for shorter passes (&gt; 0)
 * @param smallPassTokens     the shortest pass that runs at {@code efficiency} (&gt;= 1; 1: every pass does)
 * @param span                attention's cost per pair grows with the pass's size (its query rows: llama.cpp's CPU KQ and
 *                            soft-max over a pass of many tokens leave the caches): × (1 + tokens / {@code span}); 0: it
 *                            does not (the cost per pair is flat). Per pair, so the context each sequence attends to counts
 *                            as its own (one KV stream per sequence or one unified: the pairs are the same)
 * @param sumComputeMemory    a pass costs its compute plus its memory traffic (an engine that does not overlap them, as
 *                            llama.cpp's CPU decode at long context), not the larger of the two
 * @param kvCells             every token of a pass attends to this many KV cells, whatever its own sequence's context (0:
 *                            each to its own context, causally): an engine whose sequences share one KV stream
 *                            (llama.cpp's unified KV cache) computes each token's attention over the stream's whole used
 *                            span, the other sequences' cells masked, so a pass costs {@code tokens × kvCells} pairs; the
 *                            span a cell's context reaches at load (its kept blocks and every sequence's request). A
 *                            simulator that knows the stream's cells in use at a pass gives them ({@link #pairs(double,
 *                            double, double)}): llama.cpp attends to the used cells ({@code get_n_kv}: the last used
 *                            cell, padded to {@value #CELL_PAD}), so a pass at low load spans fewer than at load
 * @param maskedCost        with {@code kv_cells}: what a masked pair (a token against another sequence's cell in the
 *                            shared stream) costs against a computed one, as the engine's calibration measured it (null:
 *                            the same, as llama.cpp computes them with flash attention off). With flash attention on,
 *                            llama.cpp's CPU kernel skips masked cells: about free in passes of fewer than 64 rows, ~0.4 of
 *                            a pair in its tiled kernel for longer ones (measured 2026-12-06, README)
 * @param passes            attention's efficiency measured by pass size (its query rows), shortest first: where given,
 *                            a pass's efficiency is read from it ({@link #efficiencyAt}) and {@code efficiency},
 *                            {@code small_pass_efficiency} and {@code small_pass_tokens} stay as the summary; empty: the
 *                            two-rate step. llama.cpp's CPU attention reaches different rates at 2, 4, 64 and 512 rows
 *                            (its kernels change with the batch's size), which one step between two rates cannot follow
 * @param tileRows          passes of this many rows or more run attention in tiles of this many query rows, a pass's last
 *                            tile as dear as a full one (0: none). llama.cpp's CPU flash-attention kernel takes passes of 64
 *                            rows or more in tiles of 64 ({@code GGML_FA_TILE_Q}): measured 2026-12-06 in a hot cell's step
 *                            log, a 64-row chunk 29.8 ms, the same chunk with three decode rows (67 rows, two tiles) 55.3 ms
 *                            <p>{@code span}, {@code sum_compute_memory}, {@code kv_cells}, {@code masked_cost}, {@code
 *                            passes} and {@code tile_rows} may be left out of a catalog entry (or a twin's file written
 *                            before them): 0, false, 0, none, none and 0.
 */
public record AttentionCost(
        double efficiency,
        double smallPassEfficiency,
        int smallPassTokens,
        @JsonSetter(nulls = Nulls.AS_EMPTY) double span,
        @JsonSetter(nulls = Nulls.AS_EMPTY) boolean sumComputeMemory,
        @JsonSetter(nulls = Nulls.AS_EMPTY) int kvCells,
        MaskedCost maskedCost,
        @JsonSetter(nulls = Nulls.AS_EMPTY) java.util.List<PassEfficiency> passes,
        @JsonSetter(nulls = Nulls.AS_EMPTY) int tileRows) {

    /** Without tiles. */
    public AttentionCost(
            double efficiency,
            double smallPassEfficiency,
            int smallPassTokens,
            double span,
            boolean sumComputeMemory,
            int kvCells,
            MaskedCost maskedCost,
            java.util.List<PassEfficiency> passes) {
        this(efficiency, smallPassEfficiency, smallPassTokens, span, sumComputeMemory, kvCells, maskedCost, passes, 0);
    }

    /**
     * What a masked pair costs against a computed one ({@link #maskedCost}), by the pass's kernel.
     *
     * @param smallPass passes of fewer than {@code small_pass_tokens} rows (&gt;= 0)
     * @param pass      longer passes (&gt;= 0)
     */
    public record MaskedCost(double smallPass, double pass) {
        public MaskedCost {
            if (!(smallPass >= 0 && Double.isFinite(smallPass)))
                throw new IllegalArgumentException(
                        "attention.masked_cost.small_pass must be a finite number >= 0, got " + smallPass);
            if (!(pass >= 0 && Double.isFinite(pass)))
                throw new IllegalArgumentException(
                        "attention.masked_cost.pass must be a finite number >= 0, got " + pass);
        }
    }

    /**
     * Attention's efficiency in passes of {@code tokens} query rows, as a calibration measured it.
     *
     * @param tokens     the pass's rows (&gt;= 1)
     * @param efficiency attention's rate / the compute rate (&gt; 0)
     */
    public record PassEfficiency(int tokens, double efficiency) {
        public PassEfficiency {
            if (tokens < 1) throw new IllegalArgumentException("attention.passes[].tokens must be >= 1, got " + tokens);
            positive("attention.passes[].efficiency", efficiency);
        }
    }

    /** Without a table by pass size. */
    public AttentionCost(
            double efficiency,
            double smallPassEfficiency,
            int smallPassTokens,
            double span,
            boolean sumComputeMemory,
            int kvCells) {
        this(
                efficiency,
                smallPassEfficiency,
                smallPassTokens,
                span,
                sumComputeMemory,
                kvCells,
                null,
                java.util.List.of());
    }

    /** Without the context term and with compute and memory overlapped (the larger of the two). */
    public AttentionCost(double efficiency, double smallPassEfficiency, int smallPassTokens) {
        this(efficiency, smallPassEfficiency, smallPassTokens, 0, false);
    }

    /** Each token attends to its own context (no shared stream). */
    public AttentionCost(
            double efficiency, double smallPassEfficiency, int smallPassTokens, double span, boolean sumComputeMemory) {
        this(efficiency, smallPassEfficiency, smallPassTokens, span, sumComputeMemory, 0);
    }

    /** The same with every token attending to {@code cells} KV cells (a shared stream's used span; 0: its own context). */
    public AttentionCost withKvCells(int cells) {
        return with(cells, maskedCost, passes, tileRows);
    }

    /** The same with a masked pair costing {@code cost} (null: as a computed one). */
    public AttentionCost withMaskedCost(MaskedCost cost) {
        return with(kvCells, cost, passes, tileRows);
    }

    /** The same with passes of {@code rows} rows or more run in tiles of that many (0: none). */
    public AttentionCost withTileRows(int rows) {
        return with(kvCells, maskedCost, passes, rows);
    }

    /** This cost with the per-engine terms replaced (the rates and kernels' thresholds kept). */
    private AttentionCost with(int cells, MaskedCost cost, java.util.List<PassEfficiency> table, int tiles) {
        return new AttentionCost(
                efficiency, smallPassEfficiency, smallPassTokens, span, sumComputeMemory, cells, cost, table, tiles);
    }

    /**
     * The factor on a pass's attention work from its tiles: its rows rounded up to whole tiles over its rows, for a pass
     * of {@code tile_rows} rows or more; else 1.
     */
    public double tileFactor(double tokens) {
        if (tileRows <= 0 || tokens < tileRows) return 1;
        return Math.ceil(tokens / tileRows) * tileRows / tokens;
    }

    /** The same with attention's efficiency read by pass size from {@code table} (shortest first; empty: none). */
    public AttentionCost withPasses(java.util.List<PassEfficiency> table) {
        return with(kvCells, maskedCost, table, tileRows);
    }

    /**
     * The pairs a pass of {@code tokens} tokens costs: {@code pairs} (its causal pairs), or in a shared stream {@code
     * tokens × kvCells}, its masked pairs at {@link #maskedCost}'s rate.
     */
    public double pairs(double tokens, double pairs) {
        return kvCells > 0 ? spanned(tokens, pairs, tokens * kvCells) : pairs;
    }

    /** A shared stream's pass: {@code spanPairs} in all, of which {@code pairs} its own (computed), the rest masked. */
    private double spanned(double tokens, double pairs, double spanPairs) {
        if (maskedCost == null) return spanPairs;
        double rate = tokens < smallPassTokens ? maskedCost.smallPass() : maskedCost.pass();
        return pairs + rate * Math.max(0, spanPairs - pairs);
    }

    /** The padding of a shared stream's used span (llama.cpp's {@code n_pad} of its unified KV cache). */
    public static final int CELL_PAD = 256;

    /**
     * The same with the shared stream's cells in use at the pass known ({@code usedCells}; NaN or below 0: unknown): a
     * token then spans the used cells padded to {@value #CELL_PAD}, at most {@code kvCells}; without a shared stream
     * {@code pairs}.
     */
    public double pairs(double tokens, double pairs, double usedCells) {
        if (kvCells <= 0) return pairs;
        if (!(usedCells >= 0)) return spanned(tokens, pairs, tokens * kvCells);
        double span = Math.max(CELL_PAD, Math.ceil(usedCells / CELL_PAD) * CELL_PAD);
        return spanned(tokens, pairs, tokens * Math.min(kvCells, span));
    }

    public AttentionCost {
        passes = passes == null ? java.util.List.of() : java.util.List.copyOf(passes);
        for (int i = 1; i < passes.size(); i++)
            if (passes.get(i).tokens() <= passes.get(i - 1).tokens())
                throw new IllegalArgumentException("attention.passes must be in increasing tokens, got "
                        + passes.get(i - 1).tokens() + " then " + passes.get(i).tokens());
        if (kvCells < 0) throw new IllegalArgumentException("attention.kv_cells must be >= 0, got " + kvCells);
        if (!(span >= 0 && Double.isFinite(span)))
            throw new IllegalArgumentException("attention.span must be a finite number >= 0, got " + span);
        positive("attention.efficiency", efficiency);
        positive("attention.small_pass_efficiency", smallPassEfficiency);
        if (tileRows < 0) throw new IllegalArgumentException("attention.tile_rows must be >= 0, got " + tileRows);
        if (smallPassTokens < 1)
            throw new IllegalArgumentException("attention.small_pass_tokens must be >= 1, got " + smallPassTokens);
    }

    static void positive(String key, double v) {
        if (!(v > 0 && Double.isFinite(v)))
            throw new IllegalArgumentException(key + " must be a finite number > 0, got " + v);
    }

    /** The factor on attention's cost per pair in a pass of {@code tokens} tokens: 1 without a {@code span}, else 1 + tokens / span. */
    public double passFactor(double tokens) {
        return span > 0 && tokens > 0 ? 1 + tokens / span : 1;
    }

    /**
     * Attention's efficiency in a pass of {@code tokens} tokens: with a table by pass size, the measured one for a size it
     * holds, between two sizes the cost per pair (1 / efficiency) interpolated linearly in log(tokens), outside them the
     * nearest end's; without one, {@code small_pass_efficiency} below {@code small_pass_tokens} and {@code efficiency}
     * from there.
     */
    public double efficiencyAt(double tokens) {
        if (passes.isEmpty()) return tokens < smallPassTokens ? smallPassEfficiency : efficiency;
        PassEfficiency first = passes.getFirst(), last = passes.getLast();
        if (tokens <= first.tokens()) return first.efficiency();
        if (tokens >= last.tokens()) return last.efficiency();
        int i = 1;
        while (passes.get(i).tokens() < tokens) i++;
        PassEfficiency lo = passes.get(i - 1), hi = passes.get(i);
        double f = Math.log(tokens / lo.tokens()) / Math.log((double) hi.tokens() / lo.tokens());
        return 1 / ((1 - f) / lo.efficiency() + f / hi.efficiency());
    }
}
