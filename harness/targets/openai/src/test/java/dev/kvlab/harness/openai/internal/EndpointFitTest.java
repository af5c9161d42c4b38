package dev.kvlab.harness.openai.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.harness.api.catalog.AttentionCost;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.Roofline;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The endpoint fit recovers an engine it did not see the figures of: timings made by a roofline with a known compute
 * rate, bandwidth, attention span and short-pass kernel (prompts in passes of the fit's batch) are fitted back to those
 * figures, with compute and memory summed or maxed as the engine did; an engine whose cost per pair is flat gets no span.
 */
class EndpointFitTest {

    static final ModelSpec MODEL = new ModelSpec(
            "m", "m", List.of(), "test", 4, 256, 8, 2, 32, null, null, null, 19_155_200, null, Dtype.FP16, 8192);

    static Roofline roofline(double flops, double bw, AttentionCost a) {
        HardwareSpec hw =
                new HardwareSpec("h", "h", List.of(), "test", flops, null, bw, 1L << 34, bw, 1.0, 1.0, a, null);
        return new Roofline(MODEL, hw, KvSizing.of(MODEL, Dtype.FP16, 1));
    }

    /** A prompt of {@code n} behind {@code ctx} in passes of {@code batch}, as the engine runs it. */
    static double prompt(Roofline r, int batch, int n, int ctx) {
        double s = 0;
        for (int done = 0; done < n; done += Math.min(batch, n - done))
            s += r.prefillSeconds(Math.min(batch, n - done), ctx + done);
        return s;
    }

    Fit fitOf(Roofline truth) {
        int b = EndpointCalibration.BATCH_TOKENS;
        Roofline unit = roofline(1, 1, null);
        double kv = KvSizing.of(MODEL, Dtype.FP16, 1).bytesPerTokenAllRanks();
        var f = EndpointCalibration.fit(
                unit,
                b,
                128,
                1024,
                64,
                prompt(truth, b, 128, 0),
                prompt(truth, b, 1024, 0),
                prompt(truth, b, 64, 1024),
                truth.decodeStepSeconds(1, 128),
                truth.decodeStepSeconds(1, 1024),
                kv);
        return new Fit(1 / f.x(), f.bandwidth(), f.attention());
    }

    record Fit(double flops, double bandwidth, AttentionCost attention) {}

    @Test
    void recoversTheSpanTheShortKernelAndSummedDecode() {
        Roofline truth = roofline(4.9e11, 6.8e10, new AttentionCost(0.2, 0.02, 32, 37.7, true));
        Fit f = fitOf(truth);
        assertThat(f.flops()).isCloseTo(4.9e11, within(4.9e11 * 1e-6));
        assertThat(f.attention().efficiency()).isCloseTo(0.2, within(1e-6));
        assertThat(f.attention().span()).isCloseTo(37.7, within(1e-4));
        assertThat(f.attention().sumComputeMemory()).isTrue();
        assertThat(f.attention().smallPassEfficiency()).isCloseTo(0.02, within(1e-6));
        assertThat(f.bandwidth()).isCloseTo(6.8e10, within(6.8e10 * 1e-6));
    }

    @Test
    void aFlatCostPerPairAndOverlappedDecodeStayAsTheyAre() {
        Roofline truth = roofline(2e11, 5e10, new AttentionCost(0.5, 0.5, 1));
        Fit f = fitOf(truth);
        assertThat(f.attention().span()).isZero();
        assertThat(f.attention().sumComputeMemory()).isFalse();
        assertThat(f.flops()).isCloseTo(2e11, within(2e11 * 1e-6));
        assertThat(f.attention().efficiency()).isCloseTo(0.5, within(1e-6));
        assertThat(f.bandwidth()).isCloseTo(5e10, within(5e10 * 1e-6));
    }

    @Test
    void withoutASpanOrSumTheRooflineIsTheOneItAlwaysWas() {
        Roofline plain = roofline(3e11, 4e10, new AttentionCost(0.3, 0.05, 16));
        Roofline explicit = roofline(3e11, 4e10, new AttentionCost(0.3, 0.05, 16, 0, false));
        for (int t : new int[] {1, 8, 64, 512})
            for (int c : new int[] {0, 100, 4000}) {
                assertThat(explicit.prefillSeconds(t, c)).isEqualTo(plain.prefillSeconds(t, c));
                assertThat(explicit.decodeStepSeconds(t, c)).isEqualTo(plain.decodeStepSeconds(t, c));
            }
    }
}
