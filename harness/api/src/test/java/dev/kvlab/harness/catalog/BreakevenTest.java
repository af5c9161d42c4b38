package dev.kvlab.harness.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.harness.Catalogs;
import dev.kvlab.harness.api.catalog.Breakeven;
import dev.kvlab.harness.api.catalog.Catalog;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.transport.api.LinkSpec;
import org.junit.jupiter.api.Test;

class BreakevenTest {

    private final Catalog catalog = Catalogs.builtIn();

    private Roofline roofline(String model, int tp) {
        ModelSpec m = catalog.model(model);
        HardwareSpec h = catalog.hardware("h100");
        return new Roofline(m, h, KvSizing.of(m, Dtype.BF16, tp));
    }

    @Test
    void prefillIsComputeBoundAndMatchesHandCalculation() {
        Roofline r = roofline("llama-3-8b", 1);
        long n = 4096;
        double flops = 2 * 8_030_261_248.0 * n // linear
                + (n * (n + 1) / 2.0) * 2 * 32 * (128 + 128) * 32; // causal pairs × 2 × heads × (qk + v) × layers
        double expected = flops / (989.4e12 * 0.5);
        assertThat(r.prefillSeconds(n, 0)).isCloseTo(expected, within(expected * 1e-9));
        // attention makes long prefixes cost more per token
        assertThat(r.prefillSeconds(8192, 0) / 8192).isGreaterThan(r.prefillSeconds(1024, 0) / 1024 * 1.05);
    }

    @Test
    void decodeIsMemoryBound() {
        Roofline r = roofline("llama-3-8b", 1);
        double weights = 8_030_261_248.0 * 2;
        double context = 8 * 2000;
        double expected = (weights + (context + 8) * 131_072) / (3.35e12 * 0.75);
        assertThat(r.decodeStepSeconds(8, (long) context)).isCloseTo(expected, within(expected * 1e-9));
        assertThat(r.memorySeconds(context, 8)).isGreaterThan(r.computeSeconds(8, context + 8));
    }

    @Test
    void flipsFromRecomputeToFetchAsTheLinkGrows() {
        Roofline r = roofline("llama-3-8b", 1);
        assertThat(new Breakeven(r, LinkSpec.parse("5gbps")).at(4096).fetchWins())
                .isFalse();
        assertThat(new Breakeven(r, LinkSpec.parse("4x200gbps")).at(4096).fetchWins())
                .isTrue();
        double rate = new Breakeven(r, LinkSpec.parse("10gbps")).breakevenBitsPerSecond(4096);
        assertThat(new Breakeven(r, LinkSpec.parse(Math.round(rate * 0.95 / 1e6) + "mbps"))
                        .at(4096)
                        .fetchWins())
                .isFalse();
        assertThat(new Breakeven(r, LinkSpec.parse(Math.round(rate * 1.05 / 1e6) + "mbps"))
                        .at(4096)
                        .fetchWins())
                .isTrue();
    }

    @Test
    void breakevenLengthIsWhereFetchStartsWinningForGood() {
        Breakeven be = new Breakeven(roofline("llama-3-8b", 1), LinkSpec.parse("10gbps"));
        long n = be.breakevenTokens();
        assertThat(n).isGreaterThan(1000);
        assertThat(be.at(n).fetchWins()).isTrue();
        assertThat(be.at(n - 1).fetchWins()).isFalse();
        assertThat(be.at(2 * n).fetchWins()).isTrue();
        // a lone short prefill is weight-read-bound: fetch wins there too
        assertThat(be.memoryFloorTokens()).isGreaterThan(1);
        assertThat(be.at(1).fetchWins()).isTrue();
    }

    @Test
    void breakevenLengthFallsAsTheModelGrows() {
        for (String link : new String[] {"5gbps", "10gbps", "25gbps"}) {
            long small = new Breakeven(roofline("llama-3-8b", 1), LinkSpec.parse(link)).breakevenTokens();
            long large = new Breakeven(roofline("llama-3-70b", 1), LinkSpec.parse(link)).breakevenTokens();
            assertThat(large).as(link).isLessThan(small);
        }
    }
}
