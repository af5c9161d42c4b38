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
 */
record EngineTimings(Prefill prefill, Decode decode, List<Pass> passes, Load load, long kvBytesPerToken) {

    EngineTimings {
        passes = List.copyOf(passes);
    }

    /** The mean of each figure over {@code ts} (timings of the same probe on several contexts at once). */
    static EngineTimings mean(List<EngineTimings> ts) {
        EngineTimings f = ts.getFirst();
        int n = ts.size();
        double pe = 0, pb = 0, ds = 0, dl = 0, ls = 0, ll = 0;
        double[] qe = new double[f.passes().size()], qb = new double[qe.length];
        for (EngineTimings t : ts) {
            pe += t.prefill().empty() / n;
            pb += t.prefill().behind() / n;
            ds += t.decode().atShort() / n;
            dl += t.decode().atLong() / n;
            ls += t.load().small() / n;
            ll += t.load().large() / n;
            for (int i = 0; i < qe.length; i++) {
                qe[i] += t.passes().get(i).empty() / n;
                qb[i] += t.passes().get(i).behind() / n;
            }
        }
        java.util.List<Pass> ps = new java.util.ArrayList<>();
        for (int i = 0; i < qe.length; i++) ps.add(new Pass(f.passes().get(i).tokens(), qe[i], qb[i]));
        return new EngineTimings(new Prefill(f.prefill().tokens(), f.prefill().context(), pe, pb),
                new Decode(f.decode().shortContext(), ds, f.decode().longContext(), dl), ps,
                new Load(f.load().smallTokens(), ls, f.load().largeTokens(), ll), f.kvBytesPerToken());
    }

    /** The median of each figure over {@code rounds} (the same probe repeated on one context). */
    static EngineTimings median(List<EngineTimings> rounds) {
        if (rounds.size() == 1) return rounds.getFirst();
        EngineTimings f = rounds.getFirst();
        java.util.function.ToDoubleFunction<java.util.function.ToDoubleFunction<EngineTimings>> m =
                g -> EngineProbe.median(rounds.stream().mapToDouble(g).toArray());
        java.util.List<Pass> ps = new java.util.ArrayList<>();
        for (int i = 0; i < f.passes().size(); i++) {
            int k = i;
            ps.add(new Pass(f.passes().get(k).tokens(), m.applyAsDouble(t -> t.passes().get(k).empty()), m.applyAsDouble(t -> t.passes().get(k).behind())));
        }
        return new EngineTimings(new Prefill(f.prefill().tokens(), f.prefill().context(), m.applyAsDouble(t -> t.prefill().empty()),
                m.applyAsDouble(t -> t.prefill().behind())),
                new Decode(f.decode().shortContext(), m.applyAsDouble(t -> t.decode().atShort()), f.decode().longContext(), m.applyAsDouble(t -> t.decode().atLong())),
                ps, new Load(f.load().smallTokens(), m.applyAsDouble(t -> t.load().small()), f.load().largeTokens(), m.applyAsDouble(t -> t.load().large())),
                f.kvBytesPerToken());
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
     */
    record Load(int smallTokens, double small, int largeTokens, double large) {}
}
