package dev.kvlab.harness.llama.internal.realkv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.harness.Catalogs;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.Roofline;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link EngineFit} on timings made from a known engine (compute rate, attention efficiencies for long and short
 * passes, the pass length where they change, bandwidth, load cost): the fit gives them back; timings without a
 * context effect fall back to the plain roofline, and say so.
 */
class EngineFitTest {

    private static final double F = 2e11, E = 0.4, E_SMALL = 0.01, BW = 3e12, LOAD_S = 1.5e-4, LOAD_BPS = 2e9;
    private static final int SMALL_BELOW = 64, CHUNK = 256, CONTEXT = 1024;

    private final ModelSpec model = Catalogs.builtIn().model("llama-3-8b");
    private final KvSizing kv = KvSizing.of(model, Dtype.FP16, 1);
    private final Roofline unit =
            new Roofline(model, new HardwareSpec("unit", null, List.of(), "", 1, null, 1, 1_000_000_000L, 1, 1, 1), kv);

    /** A pass of {@code n} tokens after {@code c} on the known engine (compute only: prefill passes are compute-bound). */
    private double pass(int n, int c, int smallBelow) {
        double e = n < smallBelow ? E_SMALL : E;
        return (unit.linearFlops(n) + unit.attentionFlops(Roofline.causalPairs(n, c)) / e) / F;
    }

    /** A decode step after {@code c}: the weights and KV read, plus its attention on the short passes' kernel. */
    private double decode(double c) {
        return (unit.weightBytes() + (c + 1) * kv.bytesPerTokenAllRanks()) / BW
                + (c + 1) * unit.flopsPerPair() / (E_SMALL * F);
    }

    private EngineTimings timings(int smallBelow, double behindScale) {
        List<EngineTimings.Pass> passes = new ArrayList<>();
        for (int q = 2; q < CHUNK; q *= 2)
            passes.add(new EngineTimings.Pass(q, pass(q, 0, smallBelow), pass(q, CONTEXT, smallBelow)));
        double empty = pass(CHUNK, 0, smallBelow);
        double behind = empty + (pass(CHUNK, CONTEXT, smallBelow) - empty) * behindScale;
        long bpt = kv.bytesPerTokenAllRanks();
        return new EngineTimings(
                new EngineTimings.Prefill(CHUNK, CONTEXT, empty, behind),
                new EngineTimings.Decode(20, decode(20), 1028, decode(1028)),
                passes,
                load(bpt),
                bpt);
    }

    /**
     * The flash-attention kernel's tiles: 64 rows when a pass one row past a tile cost at least half the way from one
     * tile's pass to two tiles', else none; none either without both passes timed.
     */
    @Test
    void aPassOneRowPastATileSaysWhetherTheKernelRunsInTiles() {
        List<EngineTimings.Pass> passes = List.of(
                new EngineTimings.Pass(32, 1e-3, 90e-3),
                new EngineTimings.Pass(64, 1e-3, 20e-3),
                new EngineTimings.Pass(128, 2e-3, 38e-3));
        assertThat(new EngineTimings.Masked(2048, 1, 1, 1, 1, 36e-3).tileRows(passes))
                .isEqualTo(64);
        assertThat(new EngineTimings.Masked(2048, 1, 1, 1, 1, 20.5e-3).tileRows(passes))
                .isZero();
        assertThat(new EngineTimings.Masked(2048, 1, 1, 1, 1, 36e-3).tileRows(passes.subList(0, 2)))
                .isZero();
    }

    /**
     * The output rows' cost from the paired timings: the second row the 2-row pair's difference, each after it the
     * 8-row pair's difference beyond that over the 6 rows between; a pair that came out the wrong way round (noise)
     * costs nothing rather than a negative time.
     */
    @Test
    void outputRowsCostTheirPairedDifferences() {
        var o = new EngineTimings.Outputs(2, 1.0e-3, 3.1e-3, 8, 2.4e-3, 7.2e-3).cost();
        assertThat(o.secondRowSeconds()).isCloseTo(2.1e-3, within(1e-12));
        assertThat(o.rowSeconds()).isCloseTo((4.8e-3 - 2.1e-3) / 6, within(1e-12));
        assertThat(o.extraSeconds(8)).isCloseTo(4.8e-3, within(1e-12));
        var noise = new EngineTimings.Outputs(2, 1.0e-3, 0.9e-3, 8, 2.4e-3, 2.3e-3).cost();
        assertThat(noise.secondRowSeconds()).isZero();
        assertThat(noise.rowSeconds()).isZero();
    }

    @Test
    void givesBackTheEngineItWasMadeFrom() {
        EngineFit f = EngineFit.of(timings(SMALL_BELOW, 1), unit);
        assertThat(f.clips()).isEmpty();
        assertThat(f.flops()).isCloseTo(F, within(F * 1e-9));
        assertThat(f.attention().efficiency()).isCloseTo(E, within(E * 1e-9));
        assertThat(f.attention().smallPassEfficiency()).isCloseTo(E_SMALL, within(E_SMALL * 0.02));
        assertThat(f.attention().smallPassTokens()).isEqualTo(SMALL_BELOW);
        // the short decode step's attention (on top of the weight reads) is read as memory time: the bandwidth comes
        // out low
        assertThat(f.bandwidth()).isBetween(BW / 2.5, BW * 1.0001);
        assertThat(f.kvLoad().latencySeconds()).isCloseTo(LOAD_S, within(LOAD_S * 1e-6));
        assertThat(f.kvLoad().bytesPerSecond()).isCloseTo(LOAD_BPS, within(LOAD_BPS * 1e-6));
        assertThat(f.kvLoad().assembly().latencySeconds())
                .as("a fifth of it assembled")
                .isCloseTo(0.2 * LOAD_S, within(LOAD_S * 1e-6));
        assertThat(f.kvLoad().assembly().bytesPerSecond()).isCloseTo(5 * LOAD_BPS, within(LOAD_BPS * 1e-5));
    }

    @Test
    void findsWhereShortPassesEndAndOneKernelWhenThereIsOne() {
        assertThat(EngineFit.of(timings(16, 1), unit).attention().smallPassTokens())
                .isEqualTo(16);
        assertThat(EngineFit.of(timings(2, 1), unit).attention().smallPassTokens())
                .isEqualTo(2);
        // the chunk too on the short passes' kernel: one kernel for every pass
        assertThat(EngineFit.of(timings(CHUNK * 2, 1), unit).attention().smallPassTokens())
                .isEqualTo(1);
    }

    @Test
    void aChunkNoSlowerBehindTheContextFallsBackToThePlainRooflineAndSaysSo() {
        EngineTimings t = timings(SMALL_BELOW, 0);
        EngineFit f = EngineFit.of(t, unit);
        assertThat(f.attention().efficiency()).isEqualTo(1.0);
        assertThat(f.clips()).anyMatch(c -> c.contains("no slower"));
        double plain =
                t.prefill().empty() / (unit.linearFlops(CHUNK) + unit.attentionFlops(Roofline.causalPairs(CHUNK, 0)));
        assertThat(f.flops()).isCloseTo(1 / plain, within(1e-6 / plain));
    }

    @Test
    void theFittedRooflinePredictsThePassesItWasNotFittedTo() {
        EngineTimings t = timings(SMALL_BELOW, 1);
        EngineFit f = EngineFit.of(t, unit);
        Roofline r = new Roofline(
                model,
                new HardwareSpec(
                        "fit",
                        null,
                        List.of(),
                        "",
                        f.flops(),
                        null,
                        f.bandwidth(),
                        1_000_000_000L,
                        f.bandwidth(),
                        1,
                        1,
                        f.attention(),
                        f.kvLoad()),
                kv);
        for (EngineTimings.Pass q : t.passes()) {
            double predicted = r.prefillSeconds(q.tokens(), CONTEXT);
            assertThat(predicted / q.behind() - 1)
                    .as("a pass of %d behind %d", q.tokens(), CONTEXT)
                    .isCloseTo(0, within(0.05));
        }
    }

    /** A pass of {@code n} tokens after {@code c} on an engine that reads its weights and KV, then computes: the sum. */
    private double summedPass(int n, int c, int smallBelow) {
        long bpt = kv.bytesPerTokenAllRanks();
        return pass(n, c, smallBelow) + (unit.weightBytes() + (double) (c + n) * bpt) / BW;
    }

    private EngineTimings summedTimings(int smallBelow) {
        List<EngineTimings.Pass> passes = new ArrayList<>();
        for (int q = 2; q < CHUNK; q *= 2)
            passes.add(new EngineTimings.Pass(q, summedPass(q, 0, smallBelow), summedPass(q, CONTEXT, smallBelow)));
        long bpt = kv.bytesPerTokenAllRanks();
        // a decode step: one token after c, its attention on the short passes' kernel, plus its memory traffic
        java.util.function.DoubleUnaryOperator decode =
                c -> (unit.linearFlops(1) + unit.attentionFlops(c + 1) / E_SMALL) / F
                        + (unit.weightBytes() + (c + 1) * bpt) / BW;
        return new EngineTimings(
                new EngineTimings.Prefill(
                        CHUNK, CONTEXT, summedPass(CHUNK, 0, smallBelow), summedPass(CHUNK, CONTEXT, smallBelow)),
                new EngineTimings.Decode(20, decode.applyAsDouble(20), 1028, decode.applyAsDouble(1028)),
                passes,
                load(bpt),
                bpt);
    }

    @Test
    void theSummedFitGivesBackAnEngineThatAddsItsMemoryTimeToItsCompute() {
        EngineTimings t = summedTimings(SMALL_BELOW);
        EngineFit f = EngineFit.summed(t, unit);
        assertThat(f).isNotNull();
        assertThat(f.attention().sumComputeMemory()).isTrue();
        assertThat(f.flops()).isCloseTo(F, within(F * 1e-6));
        assertThat(f.bandwidth()).isCloseTo(BW, within(BW * 1e-6));
        assertThat(f.attention().efficiency()).isCloseTo(E, within(E * 1e-6));
        assertThat(f.attention().smallPassEfficiency()).isCloseTo(E_SMALL, within(E_SMALL * 1e-6));
        assertThat(f.attention().smallPassTokens()).isEqualTo(SMALL_BELOW);
        Roofline r = new Roofline(
                model,
                new HardwareSpec(
                        "fit",
                        null,
                        List.of(),
                        "",
                        f.flops(),
                        null,
                        f.bandwidth(),
                        1_000_000_000L,
                        f.bandwidth(),
                        1,
                        1,
                        f.attention(),
                        f.kvLoad()),
                kv);
        // the decode step at the long context, which the larger-of-the-two roofline cannot reach
        assertThat(r.decodeStepSeconds(1, 1028) / t.decode().atLong() - 1).isCloseTo(0, within(1e-6));
        for (EngineTimings.Pass q : t.passes())
            assertThat(r.prefillSeconds(q.tokens(), CONTEXT) / q.behind() - 1)
                    .as("a pass of %d behind %d", q.tokens(), CONTEXT)
                    .isCloseTo(0, within(1e-6));
    }

    @Test
    void theSummedFitRefusesTimingsThatGiveNoSuchEngine() {
        EngineTimings t = summedTimings(SMALL_BELOW);
        // a decode step no slower at the long context: no short passes' attention rate to solve for
        EngineTimings flat = new EngineTimings(
                t.prefill(),
                new EngineTimings.Decode(
                        20, t.decode().atShort(), 1028, t.decode().atShort() * 0.9),
                t.passes(),
                t.load(),
                t.kvBytesPerToken());
        assertThat(EngineFit.summed(flat, unit)).isNull();
    }

    @Test
    void roundsOfTheProbeGiveEachFigureItsMedian() {
        EngineTimings a = summedTimings(SMALL_BELOW), b = timings(SMALL_BELOW, 1);
        EngineTimings slow = new EngineTimings(
                new EngineTimings.Prefill(
                        CHUNK, CONTEXT, a.prefill().empty() * 3, a.prefill().behind() * 3),
                a.decode(),
                a.passes(),
                a.load(),
                a.kvBytesPerToken());
        EngineTimings m = EngineTimings.median(List.of(a, slow, a));
        assertThat(m.prefill().empty()).isEqualTo(a.prefill().empty());
        assertThat(m.prefill().behind()).isEqualTo(a.prefill().behind());
        assertThat(EngineTimings.median(List.of(b))).isSameAs(b);
        EngineTimings two = EngineTimings.median(List.of(a, slow));
        assertThat(two.prefill().empty()).isCloseTo(a.prefill().empty() * 2, within(1e-12));
    }
    /** An engine whose attention speeds up with the pass's rows, as llama.cpp's CPU kernels do: 2 → 0.04, 4 → 0.08, ... */
    private static double bySize(int n) {
        return n <= 1 ? E_SMALL : Math.min(E, 0.02 * n);
    }

    @Test
    void readsAttentionsEfficiencyByPassSize() {
        List<EngineTimings.Pass> passes = new ArrayList<>();
        for (int q = 2; q < CHUNK; q *= 2) {
            double e = bySize(q);
            passes.add(new EngineTimings.Pass(
                    q,
                    (unit.linearFlops(q) + unit.attentionFlops(Roofline.causalPairs(q, 0)) / e) / F,
                    (unit.linearFlops(q) + unit.attentionFlops(Roofline.causalPairs(q, CONTEXT)) / e) / F));
        }
        EngineTimings base = timings(2, 1);
        EngineTimings t = new EngineTimings(base.prefill(), base.decode(), passes, base.load(), base.kvBytesPerToken());
        var a = EngineFit.of(t, unit).attention();
        for (EngineTimings.Pass q : passes)
            assertThat(a.efficiencyAt(q.tokens()))
                    .as("a pass of %d rows", q.tokens())
                    .isCloseTo(bySize(q.tokens()), within(bySize(q.tokens()) * 1e-6));
        assertThat(a.efficiencyAt(CHUNK)).isCloseTo(E, within(E * 1e-9));
        assertThat(a.efficiencyAt(3)).isStrictlyBetween(bySize(2), bySize(4));
        // the two-rate step it replaces put every pass from 2 rows at the chunk's rate: 10x too fast at 2 rows
        assertThat(a.efficiency() / a.efficiencyAt(2)).isGreaterThan(5);
    }

    /** Loads of 32 and 1,024 tokens at {@code LOAD_S} + bytes / {@code LOAD_BPS}, a fifth of each the assembly. */
    private static EngineTimings.Load load(long bpt) {
        double small = LOAD_S + 32.0 * bpt / LOAD_BPS, large = LOAD_S + 1024.0 * bpt / LOAD_BPS;
        return new EngineTimings.Load(32, small, 1024, large, 0.2 * small, 0.2 * large);
    }
}
