package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.api.catalog.AttentionCost;
import dev.kvlab.harness.api.catalog.KvLoadCost;
import dev.kvlab.harness.api.catalog.Roofline;
import java.util.ArrayList;
import java.util.List;

/**
 * A roofline fitted to an engine's {@link EngineTimings}, on the model's FLOPs and bytes (a roofline of the model at
 * 1 FLOP/s and 1 B/s, {@code unit}):
 * <ul>
 * <li>the compute rate and the attention efficiency of long passes from the chunk into an empty context and behind
 * the long one: {@code t = (linear + attention / e) / F} at both, two equations in {@code 1/F} and {@code 1/(eF)};</li>
 * <li>the bandwidth from the decode step after the short context (weights and KV read once: memory-bound there);</li>
 * <li>where short passes end: the shortest timed pass from which every timed pass's cost per pair behind the long
 * context is nearer (in ratio) to the long passes' than to the decode step's (its growth with the context: seconds
 * per attention pair, as llama.cpp's decode pays it on top of the weight reads);</li>
 * <li>the attention efficiency of short passes from the longest timed pass shorter than that (behind the long context
 * against into an empty one), or from the decode step's growth where no timed pass is short;</li>
 * <li>attention's efficiency by pass size ({@link AttentionCost#passes()}): the decode step's (its growth with the
 * context), each timed pass's from its time behind the long context (what the linear part and, where the engine sums
 * them, the memory traffic leave to attention), and the chunk's; the twin reads a step's efficiency from it, as
 * llama.cpp's kernels change rate with a batch's rows (measured on a 4-layer model in a 4,224-cell stream, the two-rate
 * step put steps of two to four decode tokens 26-36% under the engine's time and 64-token passes 18-24% under; read by
 * pass size, 0-24% and 11-16%);</li>
 * <li>loading fetched KV: a line through the short and the long run's times.</li>
 * </ul>
 * A figure the timings cannot give (noise: a chunk behind the context no slower than into an empty one) falls back to
 * the plain roofline's and is named in {@code clips}.
 *
 * @param flops     the compute rate (FLOP/s at efficiency 1)
 * @param bandwidth bytes/s
 * @param attention attention's efficiencies and where short passes end
 * @param kvLoad    loading fetched KV
 * @param clips     what fell back, in words (empty when every figure came from the timings)
 */
record EngineFit(double flops, double bandwidth, AttentionCost attention, KvLoadCost kvLoad, List<String> clips) {

    /** The fit of {@code t} on {@code unit}, a roofline of the model at 1 FLOP/s and 1 B/s with the engine's KV bytes per token. */
    static EngineFit of(EngineTimings t, Roofline unit) {
        List<String> clips = new ArrayList<>();
        EngineTimings.Prefill p = t.prefill();
        double lin = unit.linearFlops(p.tokens());
        double ae = unit.attentionFlops(Roofline.causalPairs(p.tokens(), 0));
        double ac = unit.attentionFlops(Roofline.causalPairs(p.tokens(), p.context()));
        // t = lin·x + a·y with x = 1/F and y = 1/(e·F)
        double y = (p.behind() - p.empty()) / (ac - ae);
        double x = (p.empty() - ae * y) / lin;
        if (!(y > 0)) {
            clips.add(
                    "the chunk behind the context was no slower than into an empty one: attention at the compute rate");
            x = p.empty() / (lin + ae);
            y = x;
        } else if (!(x > 0.05 * p.empty() / lin)) {
            clips.add(
                    "attention explained more than 95% of the empty-context prefill: the linear part held at 5% of it");
            x = 0.05 * p.empty() / lin;
            y = (p.empty() - lin * x) / ae;
        }
        double flops = 1 / x;
        double efficiency = x / y;
        EngineTimings.Decode d = t.decode();
        double bandwidth = (unit.weightBytes() + (d.shortContext() + 1) * t.kvBytesPerToken()) / d.atShort();
        // seconds per attention pair in a decode step: its growth with the context
        double perPairSmall = (d.atLong() - d.atShort()) / (d.longContext() - d.shortContext());
        double perPairLarge = unit.flopsPerPair() * y;
        double smallEfficiency;
        if (!(perPairSmall > 0)) {
            clips.add("the decode step did not grow with the context: short passes' attention as long passes'");
            smallEfficiency = efficiency;
        } else {
            smallEfficiency = unit.flopsPerPair() * x / perPairSmall;
        }
        int smallPassTokens = smallPassTokens(t, unit, perPairSmall, perPairLarge);
        double decodeEfficiency = smallEfficiency;
        smallEfficiency = slowPassEfficiency(t, unit, smallPassTokens, x, 0, smallEfficiency);
        double b = 1 / bandwidth;
        return new EngineFit(
                flops,
                bandwidth,
                new AttentionCost(efficiency, smallEfficiency, smallPassTokens)
                        .withPasses(byPass(
                                t,
                                unit,
                                x,
                                decodeEfficiency,
                                efficiency,
                                q -> (unit.weightBytes() + (double) (p.context() + q) * t.kvBytesPerToken()) * b,
                                false)),
                load(t, clips),
                List.copyOf(clips));
    }

    /**
     * The fit of {@code t} with every timing the sum of its compute and its memory traffic ({@code
     * attention.sum_compute_memory}: a CPU thread that reads the weights and then computes, as llama.cpp's decode at long
     * context shows), not the larger of the two: the same four figures (compute rate, long and short passes' attention
     * rates, bandwidth) solved with each timing's memory time taken out of its compute, by a fixed point (the memory
     * terms are small beside the prefills' compute). Null where the timings give no such engine (a figure not positive).
     */
    static EngineFit summed(EngineTimings t, Roofline unit) {
        EngineTimings.Prefill p = t.prefill();
        EngineTimings.Decode d = t.decode();
        double kvb = t.kvBytesPerToken(), w = unit.weightBytes(), fpp = unit.flopsPerPair();
        double lin = unit.linearFlops(p.tokens()), lin1 = unit.linearFlops(1);
        double ae = unit.attentionFlops(Roofline.causalPairs(p.tokens(), 0));
        double ac = unit.attentionFlops(Roofline.causalPairs(p.tokens(), p.context()));
        double dctx = d.longContext() - d.shortContext();
        double x = 0, y = 0, ys = 0, b = 0; // 1/F, 1/(eF), 1/(e_small F), 1/B
        for (int i = 0; i < 50; i++) {
            y = (p.behind() - p.empty() - p.context() * kvb * b) / (ac - ae);
            x = (p.empty() - ae * y - (w + p.tokens() * kvb) * b) / lin;
            ys = (d.atLong() - d.atShort() - dctx * kvb * b) / (fpp * dctx);
            b = (d.atShort() - lin1 * x - fpp * (d.shortContext() + 1) * ys) / (w + (d.shortContext() + 1) * kvb);
        }
        if (!(x > 0 && y > 0 && ys > 0 && b > 0)) return null;
        double perPairSmall = fpp * ys, perPairLarge = fpp * y;
        int smallPassTokens = smallPassTokens(t, unit, perPairSmall, perPairLarge);
        double smallEfficiency = slowPassEfficiency(t, unit, smallPassTokens, x, p.context() * kvb * b, x / ys);
        List<String> clips = new ArrayList<>();
        double bb = b;
        return new EngineFit(
                1 / x,
                1 / b,
                new AttentionCost(x / y, smallEfficiency, smallPassTokens, 0, true)
                        .withPasses(byPass(t, unit, x, x / ys, x / y, q -> (w + (p.context() + q) * kvb) * bb, true)),
                load(t, clips),
                List.copyOf(clips));
    }

    /**
     * The short passes' attention efficiency from the longest timed pass on their kernel (shorter than {@code
     * smallPassTokens}), where there is one: a prompt suffix's pass, timed over many pairs (the decode steps' growth is a
     * difference of two short steps, noisier). Its growth behind the long context, less {@code contextMemorySeconds} (the
     * context's KV read, where a pass's memory time adds to its compute), per attention pair, against the compute rate
     * {@code 1/x}; {@code otherwise} where no timed pass is short or the growth is not positive.
     */
    /**
     * Attention's efficiency by pass size: 1 token at {@code decode}, each timed pass behind the long context at what its
     * time leaves to attention once its linear part ({@code x} seconds per FLOP) and, {@code summed}, its memory time
     * ({@code memorySeconds} of its rows) are taken out (a pass no slower than its memory time gives no point), the chunk
     * at {@code chunk}.
     */
    static List<AttentionCost.PassEfficiency> byPass(
            EngineTimings t,
            Roofline unit,
            double x,
            double decode,
            double chunk,
            java.util.function.IntToDoubleFunction memorySeconds,
            boolean summed) {
        List<AttentionCost.PassEfficiency> out = new ArrayList<>();
        if (decode > 0 && Double.isFinite(decode)) out.add(new AttentionCost.PassEfficiency(1, decode));
        int context = t.prefill().context();
        for (EngineTimings.Pass q : t.passes()) {
            if (q.tokens() <= 1) continue;
            double memory = memorySeconds.applyAsDouble(q.tokens());
            double left = summed ? q.behind() - memory : q.behind();
            if (!summed && !(q.behind() > memory)) continue;
            double attention = left - unit.linearFlops(q.tokens()) * x;
            double e = unit.attentionFlops(Roofline.causalPairs(q.tokens(), context)) * x / attention;
            if (attention > 0 && e > 0 && Double.isFinite(e)) out.add(new AttentionCost.PassEfficiency(q.tokens(), e));
        }
        int chunkTokens = t.prefill().tokens();
        if (chunk > 0
                && Double.isFinite(chunk)
                && (out.isEmpty() || out.getLast().tokens() < chunkTokens))
            out.add(new AttentionCost.PassEfficiency(chunkTokens, chunk));
        return List.copyOf(out);
    }

    private static double slowPassEfficiency(
            EngineTimings t,
            Roofline unit,
            int smallPassTokens,
            double x,
            double contextMemorySeconds,
            double otherwise) {
        EngineTimings.Pass slow = null;
        for (EngineTimings.Pass q : t.passes()) if (q.tokens() < smallPassTokens) slow = q;
        if (slow == null) return otherwise;
        int context = t.prefill().context();
        double pairs = Roofline.causalPairs(slow.tokens(), context) - Roofline.causalPairs(slow.tokens(), 0);
        double perPair = (slow.behind() - slow.empty() - contextMemorySeconds) / pairs;
        return perPair > 0 ? unit.flopsPerPair() * x / perPair : otherwise;
    }

    /**
     * The shortest timed pass from which every timed pass behind the context costs per attention pair nearer (in ratio)
     * to a long pass's than to a decode step's; the chunk's length when none does; 1 when short passes are not slower.
     */
    static int smallPassTokens(EngineTimings t, Roofline unit, double perPairSmall, double perPairLarge) {
        if (!(perPairSmall > 1.5 * perPairLarge)) return 1;
        double cut = Math.sqrt(perPairSmall * perPairLarge);
        int from = t.prefill().tokens();
        List<EngineTimings.Pass> ps = t.passes();
        for (int i = ps.size() - 1; i >= 0; i--) {
            EngineTimings.Pass q = ps.get(i);
            double pairs =
                    Roofline.causalPairs(q.tokens(), t.prefill().context()) - Roofline.causalPairs(q.tokens(), 0);
            double perPair = (q.behind() - q.empty()) / pairs;
            if (perPair > cut) break;
            from = q.tokens();
        }
        return from;
    }

    /** The whole load's line, and its assembly's (what kvlab's engine does off its engine thread). */
    private static KvLoadCost load(EngineTimings t, List<String> clips) {
        EngineTimings.Load l = t.load();
        KvLoadCost whole = line(t, l.small(), l.large(), "load", clips);
        KvLoadCost asm =
                l.largeAssembly() > 0 ? line(t, l.smallAssembly(), l.largeAssembly(), "assembly", clips) : null;
        return new KvLoadCost(whole.latencySeconds(), whole.bytesPerSecond(), asm);
    }

    /** A fixed cost and a rate through the short and the long run's times {@code small}, {@code large} (s). */
    private static KvLoadCost line(EngineTimings t, double small, double large, String what, List<String> clips) {
        EngineTimings.Load l = t.load();
        double b1 = (double) l.smallTokens() * t.kvBytesPerToken(), b2 = (double) l.largeTokens() * t.kvBytesPerToken();
        double perByte = (large - small) / (b2 - b1);
        if (!(perByte > 0)) {
            clips.add("the " + what + " of the long run was no slower than the short one's: its time is all per byte");
            return new KvLoadCost(0, b2 / large);
        }
        double latency = small - b1 * perByte;
        if (latency < 0) {
            clips.add("the " + what + "'s fixed cost came out negative: held at 0");
            return new KvLoadCost(0, b2 / large);
        }
        return new KvLoadCost(latency, 1 / perByte);
    }
}
