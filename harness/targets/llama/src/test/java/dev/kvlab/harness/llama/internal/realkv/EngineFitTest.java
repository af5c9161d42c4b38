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
    private final Roofline unit = new Roofline(model, new HardwareSpec("unit", null, List.of(), "", 1, null, 1, 1_000_000_000L, 1, 1, 1), kv);

    /** A pass of {@code n} tokens after {@code c} on the known engine (compute only: prefill passes are compute-bound). */
    private double pass(int n, int c, int smallBelow) {
        double e = n < smallBelow ? E_SMALL : E;
        return (unit.linearFlops(n) + unit.attentionFlops(Roofline.causalPairs(n, c)) / e) / F;
    }

    /** A decode step after {@code c}: the weights and KV read, plus its attention on the short passes' kernel. */
    private double decode(double c) {
        return (unit.weightBytes() + (c + 1) * kv.bytesPerTokenAllRanks()) / BW + (c + 1) * unit.flopsPerPair() / (E_SMALL * F);
    }

    private EngineTimings timings(int smallBelow, double behindScale) {
        List<EngineTimings.Pass> passes = new ArrayList<>();
        for (int q = 2; q < CHUNK; q *= 2) passes.add(new EngineTimings.Pass(q, pass(q, 0, smallBelow), pass(q, CONTEXT, smallBelow)));
        double empty = pass(CHUNK, 0, smallBelow);
        double behind = empty + (pass(CHUNK, CONTEXT, smallBelow) - empty) * behindScale;
        long bpt = kv.bytesPerTokenAllRanks();
        return new EngineTimings(new EngineTimings.Prefill(CHUNK, CONTEXT, empty, behind),
                new EngineTimings.Decode(20, decode(20), 1028, decode(1028)), passes,
                new EngineTimings.Load(32, LOAD_S + 32.0 * bpt / LOAD_BPS, 1024, LOAD_S + 1024.0 * bpt / LOAD_BPS), bpt);
    }

    @Test
    void givesBackTheEngineItWasMadeFrom() {
        EngineFit f = EngineFit.of(timings(SMALL_BELOW, 1), unit);
        assertThat(f.clips()).isEmpty();
        assertThat(f.flops()).isCloseTo(F, within(F * 1e-9));
        assertThat(f.attention().efficiency()).isCloseTo(E, within(E * 1e-9));
        assertThat(f.attention().smallPassEfficiency()).isCloseTo(E_SMALL, within(E_SMALL * 0.02));
        assertThat(f.attention().smallPassTokens()).isEqualTo(SMALL_BELOW);
        // the short decode step's attention (on top of the weight reads) is read as memory time: the bandwidth comes out low
        assertThat(f.bandwidth()).isBetween(BW / 2.5, BW * 1.0001);
        assertThat(f.kvLoad().latencySeconds()).isCloseTo(LOAD_S, within(LOAD_S * 1e-6));
        assertThat(f.kvLoad().bytesPerSecond()).isCloseTo(LOAD_BPS, within(LOAD_BPS * 1e-6));
    }

    @Test
    void findsWhereShortPassesEndAndOneKernelWhenThereIsOne() {
        assertThat(EngineFit.of(timings(16, 1), unit).attention().smallPassTokens()).isEqualTo(16);
        assertThat(EngineFit.of(timings(2, 1), unit).attention().smallPassTokens()).isEqualTo(2);
        // the chunk too on the short passes' kernel: one kernel for every pass
        assertThat(EngineFit.of(timings(CHUNK * 2, 1), unit).attention().smallPassTokens()).isEqualTo(1);
    }

    @Test
    void aChunkNoSlowerBehindTheContextFallsBackToThePlainRooflineAndSaysSo() {
        EngineTimings t = timings(SMALL_BELOW, 0);
        EngineFit f = EngineFit.of(t, unit);
        assertThat(f.attention().efficiency()).isEqualTo(1.0);
        assertThat(f.clips()).anyMatch(c -> c.contains("no slower"));
        double plain = t.prefill().empty() / (unit.linearFlops(CHUNK) + unit.attentionFlops(Roofline.causalPairs(CHUNK, 0)));
        assertThat(f.flops()).isCloseTo(1 / plain, within(1e-6 / plain));
    }

    @Test
    void theFittedRooflinePredictsThePassesItWasNotFittedTo() {
        EngineTimings t = timings(SMALL_BELOW, 1);
        EngineFit f = EngineFit.of(t, unit);
        Roofline r = new Roofline(model, new HardwareSpec("fit", null, List.of(), "", f.flops(), null, f.bandwidth(), 1_000_000_000L, f.bandwidth(),
                1, 1, f.attention(), f.kvLoad()), kv);
        for (EngineTimings.Pass q : t.passes()) {
            double predicted = r.prefillSeconds(q.tokens(), CONTEXT);
            assertThat(predicted / q.behind() - 1).as("a pass of %d behind %d", q.tokens(), CONTEXT).isCloseTo(0, within(0.05));
        }
    }
}
