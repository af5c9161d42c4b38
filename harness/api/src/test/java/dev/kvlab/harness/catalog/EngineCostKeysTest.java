package dev.kvlab.harness.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.harness.Catalogs;
import dev.kvlab.harness.api.catalog.AttentionCost;
import dev.kvlab.harness.api.catalog.Breakeven;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvLoadCost;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.OutputRowsCost;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.catalog.StepPrice;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.transport.api.LinkSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hardware entry's engine costs ({@code attention}, {@code kv_load}): read and validated from a catalog file, costed
 * by the roofline and the break-even, and without them everything as before.
 */
class EngineCostKeysTest {

    private static final String ENTRY = """
            hardware:
              - id: cpu-x
                bf16_flops: 1e11
                hbm_bandwidth: 2e10
                hbm_capacity: 8GB
                host_link_bandwidth: 2e10
                prefill_mfu: 1.0
                decode_bandwidth_utilization: 1.0
            """;

    @Test
    void readsAndValidatesTheKeysNextToTheirRecord(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("engine.yaml");
        Files.writeString(f, ENTRY + """
                    attention: {efficiency: 0.3, small_pass_efficiency: 0.004, small_pass_tokens: 64}
                    kv_load: {latency_seconds: 1.5e-4, bytes_per_second: 2e9}
                """);
        HardwareSpec h = Catalogs.load(List.of(f)).hardware("cpu-x");
        assertThat(h.attention()).isEqualTo(new AttentionCost(0.3, 0.004, 64));
        assertThat(h.kvLoad()).isEqualTo(new KvLoadCost(1.5e-4, 2e9));
        Files.writeString(f, ENTRY + """
                    kv_load: {latency_seconds: 1.5e-4, bytes_per_second: 2e9, assembly: {latency_seconds: 1e-5, bytes_per_second: 8e9}}
                """);
        KvLoadCost split = Catalogs.load(List.of(f)).hardware("cpu-x").kvLoad();
        assertThat(split).isEqualTo(new KvLoadCost(1.5e-4, 2e9, new KvLoadCost(1e-5, 8e9)));
        assertThat(split.assemblySeconds(8e9))
                .as("1 s of assembly in 4.15 s of load")
                .isCloseTo(1.00001, within(1e-9));
        assertThat(split.seconds(8e9)).isCloseTo(4.00015, within(1e-9));
        assertThat(h.withEfficiency(0.5, null).attention()).isEqualTo(h.attention());
        Files.writeString(
                f, ENTRY + "    attention: {efficiency: 0.3, small_pass_efficiency: 0, small_pass_tokens: 64}\n");
        assertThatThrownBy(() -> Catalogs.load(List.of(f)))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(f + ":")
                .hasMessageContaining("small_pass_efficiency");
        Files.writeString(f, ENTRY + "    kv_load: {latency_seconds: -1, bytes_per_second: 2e9}\n");
        assertThatThrownBy(() -> Catalogs.load(List.of(f)))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(f + ":")
                .hasMessageContaining("latency_seconds");
        Files.writeString(f, ENTRY + "    kv_load: {latency_seconds: 0, bytes_per_second: 2e9, per_block: 1}\n");
        assertThatThrownBy(() -> Catalogs.load(List.of(f)))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(f + ":")
                .hasMessageContaining("per_block");
        Files.writeString(f, ENTRY);
        HardwareSpec plain = Catalogs.load(List.of(f)).hardware("cpu-x");
        assertThat(plain.attention()).isNull();
        assertThat(plain.kvLoad()).isNull();
    }

    @Test
    void readsAttentionsEfficiencyByPassSize(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("engine.yaml");
        Files.writeString(f, ENTRY + """
                    attention: {efficiency: 0.3, small_pass_efficiency: 0.004, small_pass_tokens: 2,
                                passes: [{tokens: 1, efficiency: 0.004}, {tokens: 4, efficiency: 0.05}, {tokens: 64, efficiency: 0.3}]}
                """);
        AttentionCost a = Catalogs.load(List.of(f)).hardware("cpu-x").attention();
        assertThat(a.passes()).hasSize(3);
        assertThat(a.efficiencyAt(1)).isEqualTo(0.004);
        assertThat(a.efficiencyAt(4)).isEqualTo(0.05);
        assertThat(a.efficiencyAt(512)).isEqualTo(0.3);
        // halfway in log(tokens) from 4 to 64: the cost per pair halfway between theirs
        assertThat(1 / a.efficiencyAt(16)).isCloseTo((1 / 0.05 + 1 / 0.3) / 2, within(1e-9));
        assertThat(a.withKvCells(4096).passes()).isEqualTo(a.passes());
        Files.writeString(f, ENTRY + """
                    attention: {efficiency: 0.3, small_pass_efficiency: 0.004, small_pass_tokens: 2,
                                passes: [{tokens: 4, efficiency: 0.05}, {tokens: 4, efficiency: 0.3}]}
                """);
        assertThatThrownBy(() -> Catalogs.load(List.of(f)))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(f + ":")
                .hasMessageContaining("attention.passes");
        // without the table: the two-rate step, as before
        AttentionCost step = new AttentionCost(0.3, 0.004, 64);
        assertThat(step.efficiencyAt(63)).isEqualTo(0.004);
        assertThat(step.efficiencyAt(64)).isEqualTo(0.3);
    }

    private static ModelSpec model() {
        return Catalogs.builtIn().model("llama-3-8b");
    }

    private static HardwareSpec h100(AttentionCost a, KvLoadCost l) {
        HardwareSpec h = Catalogs.builtIn().hardware("h100");
        return new HardwareSpec(
                h.id(),
                h.name(),
                h.aliases(),
                h.source(),
                h.bf16Flops(),
                h.fp8Flops(),
                h.hbmBandwidth(),
                h.hbmCapacity(),
                h.hostLinkBandwidth(),
                h.prefillMfu(),
                h.decodeBandwidthUtilization(),
                a,
                l);
    }

    @Test
    void attentionRunsAtItsOwnRateByThePassLength() {
        ModelSpec m = model();
        KvSizing kv = KvSizing.of(m, Dtype.BF16, 1);
        Roofline plain = new Roofline(m, h100(null, null), kv);
        Roofline costed = new Roofline(m, h100(new AttentionCost(0.5, 0.01, 64), null), kv);
        double pairs32 = Roofline.causalPairs(32, 4096), pairs512 = Roofline.causalPairs(512, 4096);
        double lin32 = plain.linearFlops(32) / plain.effectiveFlops(),
                lin512 = plain.linearFlops(512) / plain.effectiveFlops();
        assertThat(costed.computeSeconds(512, pairs512) - lin512)
                .isCloseTo((plain.computeSeconds(512, pairs512) - lin512) / 0.5, within(1e-12));
        assertThat(costed.computeSeconds(32, pairs32) - lin32)
                .isCloseTo((plain.computeSeconds(32, pairs32) - lin32) / 0.01, within(1e-12));
        assertThat(costed.kvLoadSeconds(1000)).isZero();
    }

    @Test
    void withoutEngineCostsTheBreakevenIsTheClosedFormsBitForBit() {
        ModelSpec m = model();
        KvSizing kv = KvSizing.of(m, Dtype.BF16, 1);
        Roofline plain = new Roofline(m, h100(null, null), kv);
        LinkSpec link = LinkSpec.parse("10gbps");
        Breakeven a = new Breakeven(plain, link), b = new Breakeven(plain, link, 0, Integer.MAX_VALUE);
        for (long n : new long[] {1, 100, 4096, 100_000}) {
            assertThat(b.recomputeSeconds(n)).isEqualTo(plain.prefillSeconds(n, 0));
            assertThat(b.fetchSeconds(n)).isEqualTo(a.fetchSeconds(n));
        }
        assertThat(b.breakevenTokens()).isEqualTo(a.breakevenTokens());
        assertThat(a.memoryFloorTokens()).isNotNaN();
    }

    @Test
    void aSuffixPassesAndLoadingAreCountedOnBothSides() {
        ModelSpec m = model();
        KvSizing kv = KvSizing.of(m, Dtype.BF16, 1);
        KvLoadCost load = new KvLoadCost(2e-3, 2e11);
        Roofline r = new Roofline(m, h100(new AttentionCost(0.5, 0.05, 64), load), kv);
        LinkSpec link = LinkSpec.parse("100gbps@10us");
        Breakeven be = new Breakeven(r, link, 32, 512);
        long n = 2048;
        double transfer = 10e-6 + kv.bytesPerTokenPerRank() * (double) n / link.bytesPerSecond();
        assertThat(be.fetchSeconds(n))
                .isCloseTo(
                        transfer + load.seconds(n * kv.bytesPerTokenPerRank()) + r.prefillSeconds(32, n),
                        within(1e-12));
        double rec = 0;
        for (long done = 0; done < n + 32; done += 512) rec += r.prefillSeconds(Math.min(512, n + 32 - done), done);
        assertThat(be.recomputeSeconds(n)).isCloseTo(rec, within(1e-12));
        long from = be.breakevenTokens();
        assertThat(from).isBetween(2L, (long) m.maxContext());
        assertThat(be.recomputeSeconds(from)).isGreaterThan(be.fetchSeconds(from));
        assertThat(be.recomputeSeconds(from - 1)).isLessThanOrEqualTo(be.fetchSeconds(from - 1));
        for (long k = from; k <= m.maxContext(); k += 97)
            assertThat(be.recomputeSeconds(k)).isGreaterThan(be.fetchSeconds(k));
        assertThat(be.memoryFloorTokens()).isNaN();
        // the link at which this prefix breaks even makes both sides equal
        double bps = be.breakevenBitsPerSecond(n);
        Breakeven at = new Breakeven(r, new LinkSpec(1, bps, java.time.Duration.ofNanos(10_000)), 32, 512);
        assertThat(at.fetchSeconds(n)).isCloseTo(at.recomputeSeconds(n), within(at.recomputeSeconds(n) * 1e-6));
        // loading at 1 GB/s, fetch loses at the longest prefixes: it never wins for good within the model's context
        Roofline slowLoad = new Roofline(m, h100(new AttentionCost(0.5, 0.05, 64), new KvLoadCost(2e-3, 1e9)), kv);
        assertThat(new Breakeven(slowLoad, link, 32, 512).breakevenTokens()).isEqualTo(m.maxContext() + 1L);
    }

    /** Issue 32: a shared stream's pass spans the cells in use (padded), at most the stream's span at load; unknown: that span. */
    @Test
    void aSharedStreamSpansTheCellsInUse() {
        AttentionCost shared = new AttentionCost(0.1, 0.01, 4).withKvCells(8704);
        assertThat(shared.pairs(64, 999, Double.NaN)).isEqualTo(64.0 * 8704);
        assertThat(shared.pairs(64, 999)).isEqualTo(64.0 * 8704);
        assertThat(shared.pairs(64, 999, 5200)).isEqualTo(64.0 * 5376);
        assertThat(shared.pairs(64, 999, 10)).isEqualTo(64.0 * AttentionCost.CELL_PAD);
        assertThat(shared.pairs(64, 999, 20_000)).isEqualTo(64.0 * 8704);
        AttentionCost own = new AttentionCost(0.1, 0.01, 4);
        assertThat(own.pairs(64, 999, 5200)).isEqualTo(999);
        ModelSpec m = Catalogs.builtIn().model("llama-3-8b");
        HardwareSpec h = Catalogs.builtIn().hardware("h100");
        HardwareSpec hs = new HardwareSpec(
                h.id(),
                h.name(),
                h.aliases(),
                h.source(),
                h.bf16Flops(),
                h.fp8Flops(),
                h.hbmBandwidth(),
                h.hbmCapacity(),
                h.hostLinkBandwidth(),
                h.prefillMfu(),
                h.decodeBandwidthUtilization(),
                shared,
                h.kvLoad());
        Roofline r = new Roofline(m, hs, KvSizing.of(m, Dtype.FP16, 1));
        double pairs = Roofline.causalPairs(64, 1024);
        assertThat(r.computeSeconds(64, pairs, 1024)).isLessThan(r.computeSeconds(64, pairs, 6000));
        assertThat(r.passSeconds(64, pairs, 1024, 64, Double.NaN)).isEqualTo(r.passSeconds(64, pairs, 1024, 64));
        Roofline plain = new Roofline(m, h, KvSizing.of(m, Dtype.FP16, 1));
        assertThat(plain.passSeconds(64, pairs, 1024, 64, 6000)).isEqualTo(plain.passSeconds(64, pairs, 1024, 64));
    }

    /**
     * A shared stream whose kernel skips masked cells at a cost of its own ({@code masked_cost}, measured by the engine's
     * calibration): a pass costs its own causal pairs plus its masked ones (the span's rest) at the rate of its kernel,
     * short passes' below {@code small_pass_tokens}. Without it, every spanned pair costs a computed one, bit for bit.
     */
    @Test
    void aSharedStreamsMaskedPairsCostWhatTheCalibrationMeasuredByKernel(@TempDir Path dir) throws Exception {
        AttentionCost spanning = new AttentionCost(0.1, 0.01, 64).withKvCells(8704);
        AttentionCost masked = spanning.withMaskedCost(new AttentionCost.MaskedCost(0.02, 0.4));
        double own = Roofline.causalPairs(64, 1024);
        assertThat(masked.pairs(64, own, 5200)).isEqualTo(own + 0.4 * (64.0 * 5376 - own));
        assertThat(masked.pairs(1, 1345, 5200)).isEqualTo(1345 + 0.02 * (5376.0 - 1345));
        assertThat(masked.pairs(64, own)).isEqualTo(own + 0.4 * (64.0 * 8704 - own));
        assertThat(spanning.pairs(64, own, 5200)).isEqualTo(64.0 * 5376);
        assertThat(masked.withKvCells(4096).maskedCost()).isEqualTo(masked.maskedCost());
        assertThat(masked.withPasses(List.of()).maskedCost()).isEqualTo(masked.maskedCost());
        // no shared stream: the masked cost has nothing to price
        assertThat(new AttentionCost(0.1, 0.01, 64)
                        .withMaskedCost(masked.maskedCost())
                        .pairs(64, own, 5200))
                .isEqualTo(own);
        Roofline r = llama8bOnH100(masked);
        assertThat(r.computeSeconds(64, own, 5200))
                .isLessThan(llama8bOnH100(spanning).computeSeconds(64, own, 5200))
                .isGreaterThan(llama8bOnH100(new AttentionCost(0.1, 0.01, 64)).computeSeconds(64, own));
        assertThatThrownBy(() -> new AttentionCost.MaskedCost(-0.1, 0.4)).hasMessageContaining("small_pass");
        Path f = dir.resolve("engine.yaml");
        Files.writeString(
                f,
                ENTRY
                        + "    attention: {efficiency: 0.3, small_pass_efficiency: 0.004, small_pass_tokens: 64, masked_cost: {small_pass: 0.02, pass: 0.4}}\n");
        assertThat(Catalogs.load(List.of(f)).hardware("cpu-x").attention().maskedCost())
                .isEqualTo(new AttentionCost.MaskedCost(0.02, 0.4));
        Files.writeString(
                f,
                ENTRY
                        + "    attention: {efficiency: 0.3, small_pass_efficiency: 0.004, small_pass_tokens: 64, masked_cost: {small_pass: 0.02, pass: -1}}\n");
        assertThatThrownBy(() -> Catalogs.load(List.of(f)))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(f + ":")
                .hasMessageContaining("masked_cost.pass");
    }

    /**
     * A kernel that runs passes of tile_rows rows or more in tiles of that many prices a pass as its rows rounded up to
     * whole tiles (a 65-row pass as two tiles); shorter passes and entries without tiles as before, bit for bit.
     */
    @Test
    void aTiledKernelsPassCostsItsRowsRoundedUpToWholeTiles(@TempDir Path dir) throws Exception {
        AttentionCost flat = new AttentionCost(0.1, 0.01, 64);
        AttentionCost tiled = flat.withTileRows(64);
        assertThat(tiled.tileFactor(32)).isEqualTo(1.0);
        assertThat(tiled.tileFactor(64)).isEqualTo(1.0);
        assertThat(tiled.tileFactor(67)).isEqualTo(128.0 / 67);
        assertThat(tiled.tileFactor(130)).isEqualTo(192.0 / 130);
        assertThat(flat.tileFactor(67)).isEqualTo(1.0);
        assertThat(tiled.withKvCells(4096)
                        .withMaskedCost(new AttentionCost.MaskedCost(0, 0.4))
                        .tileRows())
                .isEqualTo(64);
        Roofline a = llama8bOnH100(flat), b = llama8bOnH100(tiled);
        double pairs = Roofline.causalPairs(67, 1024);
        assertThat(b.computeSeconds(64, Roofline.causalPairs(64, 1024)))
                .isEqualTo(a.computeSeconds(64, Roofline.causalPairs(64, 1024)));
        double attention67 = a.computeSeconds(67, pairs) - a.computeSeconds(67, 0);
        assertThat(b.computeSeconds(67, pairs) - b.computeSeconds(67, 0))
                .isCloseTo(attention67 * 128 / 67, within(attention67 * 1e-9));
        assertThatThrownBy(() -> flat.withTileRows(-1)).hasMessageContaining("tile_rows");
        Path f = dir.resolve("engine.yaml");
        Files.writeString(
                f,
                ENTRY
                        + "    attention: {efficiency: 0.3, small_pass_efficiency: 0.004, small_pass_tokens: 64, tile_rows: 64}\n");
        assertThat(Catalogs.load(List.of(f)).hardware("cpu-x").attention().tileRows())
                .isEqualTo(64);
        Files.writeString(
                f, ENTRY + "    attention: {efficiency: 0.3, small_pass_efficiency: 0.004, small_pass_tokens: 64}\n");
        assertThat(Catalogs.load(List.of(f)).hardware("cpu-x").attention().tileRows())
                .isZero();
    }

    /**
     * A step's output rows beyond its first (a decoding sequence's token each, a prompt's last chunk one) at what the
     * calibration measured; a chunk that does not end its prompt has none; without the cost every price is as before.
     */
    @Test
    void aStepsOutputRowsBeyondTheFirstCostWhatTheCalibrationMeasured(@TempDir Path dir) throws Exception {
        OutputRowsCost o = new OutputRowsCost(2e-3, 0.5e-3);
        assertThat(o.extraSeconds(0)).isZero();
        assertThat(o.extraSeconds(1)).isZero();
        assertThat(o.extraSeconds(2)).isEqualTo(2e-3);
        assertThat(o.extraSeconds(8)).isEqualTo(2e-3 + 6 * 0.5e-3);
        Roofline plain = llama8bOnH100(new AttentionCost(0.1, 0.01, 64));
        Roofline rows = new Roofline(plain.model(), plain.hardware().withOutputRows(o), plain.kv());
        StepPrice a = new StepPrice(plain), b = new StepPrice(rows);
        for (StepPrice p : new StepPrice[] {a, b}) {
            for (int i = 0; i < 4; i++) p.decode(1000 + i);
            p.chunk(64, 1024, true);
            p.chunk(512, 0, false);
        }
        assertThat(b.seconds(Double.NaN) - a.seconds(Double.NaN)).isCloseTo(o.extraSeconds(5), within(1e-12));
        a.clear();
        b.clear();
        a.chunk(512, 0, false);
        b.chunk(512, 0, false);
        assertThat(b.seconds(Double.NaN)).isEqualTo(a.seconds(Double.NaN));
        // the rate scales with the engine's speed; the entry's other copies keep it
        assertThat(rows.hardware().slowerBy(2).outputRows()).isEqualTo(new OutputRowsCost(4e-3, 1e-3));
        assertThat(rows.hardware().withEfficiency(0.5, null).outputRows()).isEqualTo(o);
        assertThat(rows.hardware().withAttention(null).outputRows()).isEqualTo(o);
        assertThatThrownBy(() -> new OutputRowsCost(-1e-3, 0)).hasMessageContaining("second_row_seconds");
        Path f = dir.resolve("engine.yaml");
        Files.writeString(f, ENTRY + "    output_rows: {second_row_seconds: 2.0e-3, row_seconds: 5.0e-4}\n");
        assertThat(Catalogs.load(List.of(f)).hardware("cpu-x").outputRows()).isEqualTo(o);
        Files.writeString(f, ENTRY + "    output_rows: {second_row_seconds: 2.0e-3, row_seconds: -1}\n");
        assertThatThrownBy(() -> Catalogs.load(List.of(f)))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(f + ":")
                .hasMessageContaining("output_rows.row_seconds");
        assertThat(Catalogs.load(List.of()).hardware("h100").outputRows()).isNull();
    }

    @Test
    void ownStreamsRunEachSequencesAttentionOnTheKernelOfItsOwnRows() {
        AttentionCost att = new AttentionCost(0.1, 0.01, 64, 0, true);
        Roofline r = llama8bOnH100(att);
        assertThat(r.ownStreamKernels()).isTrue();
        // four sequences' decode tokens in one step: four one-row attentions on the short passes' kernel, not one
        // four-token pass (which, at 64 rows or more, would run on the long passes' kernel)
        double rated = 0;
        for (int s = 0; s < 4; s++) rated += r.ownStreamPairs(1, 1025);
        assertThat(rated).isEqualTo(4 * 1025 / 0.01);
        double step = r.passSecondsRated(4, rated, 4 * 1024, 4);
        double attention = r.attentionFlops(4 * 1025) / 0.01 / r.effectiveFlops();
        assertThat(step).isGreaterThan(attention);
        // one sequence alone: the rated pass is the plain pass
        assertThat(r.passSecondsRated(1, r.ownStreamPairs(1, 1025), 1024, 1))
                .isCloseTo(r.passSeconds(1, 1025, 1024, 1), within(1e-15));
        // a prompt chunk of 512 rows runs on the long passes' kernel whatever else shares its step
        assertThat(r.ownStreamPairs(512, 1000)).isEqualTo(1000 / 0.1);
        // a shared stream is one attention over its cells: not own-stream kernels
        assertThat(llama8bOnH100(att.withKvCells(4096)).ownStreamKernels()).isFalse();
        assertThat(llama8bOnH100(null).ownStreamKernels()).isFalse();
    }

    @Test
    void aStepOnOwnStreamsRunsAsEqualMicroBatchesWhoseSequencesSpanTheWidestOnesCells() {
        AttentionCost att = new AttentionCost(0.1, 0.01, 64, 0, true);
        Roofline r = llama8bOnH100(att);
        // one sequence alone: its own causal pass
        assertThat(r.ownStreamStepSeconds(new double[] {382}, new double[] {0}, 1))
                .isEqualTo(r.passSecondsRated(382, r.ownStreamPairs(382, Roofline.causalPairs(382, 0)), 0, 382));
        // 382 rows from 0 beside 129 rows behind 959: 129 rows each in one micro-batch spanning 959 + 129 cells, then
        // the
        // first's other 253 rows alone behind its 129
        double both = r.ownStreamStepSeconds(new double[] {382, 129}, new double[] {0, 959}, 2);
        double first = r.passSecondsRated(258, 2 * r.ownStreamPairs(129, 129.0 * 1088), 959, 258);
        double rest = r.passSecondsRated(253, r.ownStreamPairs(253, Roofline.causalPairs(253, 129)), 129, 253);
        assertThat(both).isCloseTo(first + rest, within(1e-12));
        double apart = r.ownStreamStepSeconds(new double[] {382}, new double[] {0}, 1)
                + r.ownStreamStepSeconds(new double[] {129}, new double[] {959}, 1);
        assertThat(both).isGreaterThan(apart);
        // the arrays given are not changed
        double[] rows = {1, 1}, ctx = {10, 20};
        r.ownStreamStepSeconds(rows, ctx, 2);
        assertThat(rows).containsExactly(1, 1);
        assertThat(ctx).containsExactly(10, 20);
    }

    /** llama-3-8b on the catalog's H100 with {@code attention} (null: none), FP16 KV. */
    /**
     * One step priced part by part ({@link StepPrice}, as the sim's instances and a real engine's priced steps build it)
     * is the roofline's own price of that step: own streams by their parts, a shared stream by its cells in use, no
     * attention cost by the step's tokens and causal pairs. Reused after {@code clear}, it prices the next step alone.
     */
    @Test
    void aStepPricedPartByPartIsTheRooflinesPriceOfIt() {
        Roofline own = llama8bOnH100(new AttentionCost(0.1, 0.01, 64, 0, true));
        StepPrice p = new StepPrice(own);
        p.decode(959);
        p.chunk(382, 0);
        assertThat(p.tokens()).isEqualTo(383);
        assertThat(p.seconds(Double.NaN))
                .isEqualTo(own.ownStreamStepSeconds(new double[] {1, 382}, new double[] {959, 0}, 2));
        Roofline shared = llama8bOnH100(new AttentionCost(0.1, 0.01, 64, 0, true, 4096));
        StepPrice q = new StepPrice(shared);
        q.decode(959);
        q.chunk(382, 128);
        double pairs = 960 + Roofline.causalPairs(382, 128);
        assertThat(q.seconds(2048)).isEqualTo(shared.passSeconds(383, pairs, 959 + 128, 383, 2048));
        Roofline plain = llama8bOnH100(null);
        StepPrice r = new StepPrice(plain);
        r.decode(10);
        r.clear();
        r.chunk(64, 0);
        assertThat(r.seconds(Double.NaN)).isEqualTo(plain.passSeconds(64, Roofline.causalPairs(64, 0), 0, 64));
    }

    /**
     * A twin at the speed its engine ran ({@link dev.kvlab.harness.api.twin.TwinCalibration#atSpeed}) prices every step
     * that many times the calibration's: prefill chunks and decode tokens, attention included, faster (a ratio below 1:
     * an engine ran faster than calibrated, whose efficiencies may not exceed 1) as slower.
     */
    @Test
    void aTwinAtTheEnginesSpeedPricesEveryStepThatManyTimes() {
        Roofline own = llama8bOnH100(new AttentionCost(0.1, 0.01, 64, 0, true));
        var t = new dev.kvlab.harness.api.twin.TwinCalibration(
                "e",
                own.model(),
                own.hardware(),
                Dtype.FP16,
                512,
                4,
                1,
                Double.NaN,
                Double.NaN,
                0,
                dev.kvlab.harness.api.SummaryRow.empty(),
                null);
        for (double r : new double[] {1.25, 0.5})
            for (int[] step : new int[][] {{1, 959}, {382, 0}, {64, 4000}}) {
                Roofline slow = new Roofline(own.model(), t.atSpeed(r).hardware(), own.kv());
                StepPrice a = new StepPrice(own), b = new StepPrice(slow);
                if (step[0] == 1) {
                    a.decode(step[1]);
                    b.decode(step[1]);
                } else {
                    a.chunk(step[0], step[1]);
                    b.chunk(step[0], step[1]);
                }
                assertThat(b.seconds(Double.NaN) / a.seconds(Double.NaN)).isCloseTo(r, within(1e-9));
            }
        assertThatThrownBy(() -> t.atSpeed(0)).hasMessageContaining("> 0");
    }

    private static Roofline llama8bOnH100(AttentionCost attention) {
        ModelSpec m = Catalogs.builtIn().model("llama-3-8b");
        HardwareSpec h = Catalogs.builtIn().hardware("h100");
        HardwareSpec hs = new HardwareSpec(
                h.id(),
                h.name(),
                h.aliases(),
                h.source(),
                h.bf16Flops(),
                h.fp8Flops(),
                h.hbmBandwidth(),
                h.hbmCapacity(),
                h.hostLinkBandwidth(),
                h.prefillMfu(),
                h.decodeBandwidthUtilization(),
                attention,
                h.kvLoad());
        return new Roofline(m, hs, KvSizing.of(m, Dtype.FP16, 1));
    }
}
