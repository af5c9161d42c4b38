package dev.kvlab.harness.llama.internal.realkv;

import java.util.List;

/**
 * What {@code kvlab calibrate --engine} (and a real-engine cell before it serves) times on llama.cpp, each a median
 * (seconds): prefill of a chunk into an empty context and behind a long one, a decode step after a short and after a
 * long context, passes of a few lengths into an empty context and behind the long one (where the engine changes its
 * attention kernel), and loading fetched KV into the engine (assembly and restore) for a short and a long run of
 * blocks. {@link EngineFit} turns them into a roofline.
 *
 * @param prefill         the chunk into an empty context and behind the long one
 * @param decode          decode steps after a short and a long context
 * @param passes          passes shorter than the chunk, into an empty context and behind the long one, shortest first
 * @param load            loading fetched blocks into the engine
 * @param kvBytesPerToken the engine's KV bytes per token (what a load moves)
 * @param masked          the long context's decode step and chunk again with another sequence's cells in the stream (null:
 *                        not timed, as with flash attention off, whose kernel computes masked pairs as any other)
 * @param outputs         passes timed with one output row and with all their rows (null: not timed)
 */
record EngineTimings(
        Prefill prefill,
        Decode decode,
        List<Pass> passes,
        Load load,
        long kvBytesPerToken,
        Masked masked,
        Outputs outputs) {

    /** Without the output rows' timings. */
    EngineTimings(Prefill prefill, Decode decode, List<Pass> passes, Load load, long kvBytesPerToken, Masked masked) {
        this(prefill, decode, passes, load, kvBytesPerToken, masked, null);
    }

    /** Without the masked and output rows' timings. */
    EngineTimings(Prefill prefill, Decode decode, List<Pass> passes, Load load, long kvBytesPerToken) {
        this(prefill, decode, passes, load, kvBytesPerToken, null, null);
    }

    EngineTimings {
        passes = List.copyOf(passes);
    }

    /** The mean of each figure over {@code ts} (timings of the same probe on several contexts at once). */
    static EngineTimings mean(List<EngineTimings> ts) {
        return each(ts, v -> {
            double sum = 0;
            for (double x : v) sum += x / v.length;
            return sum;
        });
    }

    /** The median of each figure over {@code rounds} (the same probe repeated on one context). */
    static EngineTimings median(List<EngineTimings> rounds) {
        return rounds.size() == 1 ? rounds.getFirst() : each(rounds, EngineProbe::median);
    }

    /** Each figure of {@code ts} (timings of one probe: the same chunk, contexts and passes) reduced over them by {@code reduce}. */
    private static EngineTimings each(List<EngineTimings> ts, java.util.function.ToDoubleFunction<double[]> reduce) {
        EngineTimings f = ts.getFirst();
        java.util.function.ToDoubleFunction<java.util.function.ToDoubleFunction<EngineTimings>> r =
                g -> reduce.applyAsDouble(ts.stream().mapToDouble(g).toArray());
        java.util.List<Pass> ps = new java.util.ArrayList<>();
        for (int i = 0; i < f.passes().size(); i++) {
            int k = i;
            ps.add(new Pass(
                    f.passes().get(k).tokens(),
                    r.applyAsDouble(t -> t.passes().get(k).empty()),
                    r.applyAsDouble(t -> t.passes().get(k).behind())));
        }
        return new EngineTimings(
                new Prefill(
                        f.prefill().tokens(),
                        f.prefill().context(),
                        r.applyAsDouble(t -> t.prefill().empty()),
                        r.applyAsDouble(t -> t.prefill().behind())),
                new Decode(
                        f.decode().shortContext(),
                        r.applyAsDouble(t -> t.decode().atShort()),
                        f.decode().longContext(),
                        r.applyAsDouble(t -> t.decode().atLong())),
                ps,
                new Load(
                        f.load().smallTokens(),
                        r.applyAsDouble(t -> t.load().small()),
                        f.load().largeTokens(),
                        r.applyAsDouble(t -> t.load().large()),
                        r.applyAsDouble(t -> t.load().smallAssembly()),
                        r.applyAsDouble(t -> t.load().largeAssembly())),
                f.kvBytesPerToken(),
                f.masked() == null
                        ? null
                        : new Masked(
                                f.masked().cells(),
                                r.applyAsDouble(t -> t.masked().decode()),
                                r.applyAsDouble(t -> t.masked().decodeAlone()),
                                r.applyAsDouble(t -> t.masked().chunk()),
                                r.applyAsDouble(t -> t.masked().chunkAlone()),
                                r.applyAsDouble(t -> t.masked().pastTile())),
                f.outputs() == null
                        ? null
                        : new Outputs(
                                f.outputs().fewRows(),
                                r.applyAsDouble(t -> t.outputs().fewOne()),
                                r.applyAsDouble(t -> t.outputs().fewAll()),
                                f.outputs().manyRows(),
                                r.applyAsDouble(t -> t.outputs().manyOne()),
                                r.applyAsDouble(t -> t.outputs().manyAll())));
    }

    /**
     * Passes of a few and of many rows behind a short context, each timed in pairs: with its last row's logits only (as
     * a prompt's pass) and with every row's (as a decode step of that many sequences); medians of each side.
     *
     * @param fewRows  the short pass's rows (2)
     * @param fewOne   it, the last row's logits only
     * @param fewAll   it, every row's logits
     * @param manyRows the long pass's rows
     * @param manyOne  it, the last row's logits only
     * @param manyAll  it, every row's logits
     */
    record Outputs(int fewRows, double fewOne, double fewAll, int manyRows, double manyOne, double manyAll) {

        /**
         * What the rows beyond the first cost: the second row the short pair's difference; each after it the long
         * pair's difference beyond the short one's, over the rows between (each at least 0).
         */
        dev.kvlab.harness.api.catalog.OutputRowsCost cost() {
            double few = Math.max(0, fewAll - fewOne), many = Math.max(0, manyAll - manyOne);
            double row = Math.max(0, (many - few) / (manyRows - fewRows));
            return new dev.kvlab.harness.api.catalog.OutputRowsCost(Math.max(0, few - (fewRows - 2) * row), row);
        }
    }

    /**
     * A shared stream holding {@code cells} cells of another sequence besides the long context: what each token's
     * attention masks.
     *
     * @param cells       the other sequence's cells
     * @param decode      a decode step after the long context (as {@link Decode#atLong})
     * @param decodeAlone the same step without the other sequence, timed in turn with {@code decode}
     * @param chunk       the chunk behind the long context (as {@link Prefill#behind})
     * @param chunkAlone  the same pass without the other sequence, timed in turn with {@code chunk}
     * @param pastTile    a pass of {@link EngineProbe#FA_TILE_ROWS} + 1 rows behind the long context, alone
     */
    record Masked(int cells, double decode, double decodeAlone, double chunk, double chunkAlone, double pastTile) {

        /**
         * The rows of the kernel's tiles ({@link dev.kvlab.harness.api.catalog.AttentionCost#tileRows}): {@link
         * EngineProbe#FA_TILE_ROWS} when a pass one row past a tile cost at least half the way from one tile to two (the
         * passes of one and two tiles behind the long context, {@code passes}), else 0 (or when either was not timed).
         */
        int tileRows(List<Pass> passes) {
            int tile = EngineProbe.FA_TILE_ROWS;
            Pass one = null, two = null;
            for (Pass q : passes) {
                if (q.tokens() == tile) one = q;
                if (q.tokens() == 2 * tile) two = q;
            }
            if (one == null || two == null || !(two.behind() > one.behind())) return 0;
            return pastTile - one.behind() >= 0.5 * (two.behind() - one.behind()) ? tile : 0;
        }

        /**
         * What a masked pair cost against a computed one, in the decode step (the short passes' kernel) and in the chunk
         * (the long passes'): the time the other cells added per masked pair (against the same pass timed in turn without
         * them) over the time the long context added per pair it holds, each in [0, 1]; a kernel whose time did not grow
         * with its own context: 1 (as computed).
         */
        dev.kvlab.harness.api.catalog.AttentionCost.MaskedCost cost(Prefill p, Decode d) {
            return new dev.kvlab.harness.api.catalog.AttentionCost.MaskedCost(
                    ratio(maskedDecode(), ownDecode(d)), ratio(maskedChunk(p), ownChunk(p)));
        }

        /** The kernels {@link #cost} could not rate (priced as computing masked pairs), in words; empty: none. */
        List<String> clips(Prefill p, Decode d) {
            List<String> out = new java.util.ArrayList<>();
            if (!measurable(maskedDecode(), ownDecode(d)))
                out.add(
                        "the decode step did not grow with its context: a masked pair in short passes costs a computed one");
            if (!measurable(maskedChunk(p), ownChunk(p)))
                out.add("the chunk did not grow with its context: a masked pair in long passes costs a computed one");
            return out;
        }

        private double maskedDecode() {
            return (decode - decodeAlone) / cells;
        }

        private double maskedChunk(Prefill p) {
            return (chunk - chunkAlone) / ((double) p.tokens() * cells);
        }

        private static double ownDecode(Decode d) {
            return (d.atLong() - d.atShort()) / (d.longContext() - d.shortContext());
        }

        private static double ownChunk(Prefill p) {
            return (p.behind() - p.empty()) / ((double) p.tokens() * p.context());
        }

        private static boolean measurable(double masked, double own) {
            return own > 0 && Double.isFinite(masked);
        }

        private static double ratio(double masked, double own) {
            return measurable(masked, own) ? Math.clamp(masked / own, 0.0, 1.0) : 1;
        }
    }

    /**
     * @param tokens  the chunk
     * @param context the long context
     * @param empty   the chunk into an empty context
     * @param behind  the chunk after {@code context} tokens
     */
    record Prefill(int tokens, int context, double empty, double behind) {}

    /**
     * @param shortContext tokens held at the short context's steps (their mean)
     * @param atShort      a step there
     * @param longContext  tokens held at the long context's steps (their mean)
     * @param atLong       a step there
     */
    record Decode(double shortContext, double atShort, double longContext, double atLong) {}

    /**
     * @param tokens tokens of the pass
     * @param empty  the pass into an empty context
     * @param behind the pass after the long context
     */
    record Pass(int tokens, double empty, double behind) {}

    /**
     * @param smallTokens tokens of the short run (one block)
     * @param small       assembling and restoring it
     * @param largeTokens tokens of the long run
     * @param large       assembling and restoring it
     * @param smallAssembly of {@code small}, the assembly (what kvlab's engine does off its engine thread)
     * @param largeAssembly of {@code large}, the assembly
     */
    record Load(
            int smallTokens, double small, int largeTokens, double large, double smallAssembly, double largeAssembly) {}
}
