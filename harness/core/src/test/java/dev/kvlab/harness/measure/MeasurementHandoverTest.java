package dev.kvlab.harness.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.HandoverRecord;
import dev.kvlab.harness.api.config.SloConfig;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.harness.core.internal.engine.Seq;
import dev.kvlab.harness.core.internal.measure.Measurement;
import dev.kvlab.harness.spi.Handover;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import org.junit.jupiter.api.Test;

/**
 * PD disaggregation's handover as the measurement sees it: counted (bytes, tokens, fallbacks) for every measured
 * request that reported one, and the parts of a completed request's TTFT from its intended arrival: prefill queue,
 * prefill, handover, decode queue, restore, then the first decode step; and the {@code pd_transfer} key, refused where
 * it does not apply.
 */
class MeasurementHandoverTest {

    private static final long MS = 1_000_000L;

    private static Seq seq(long id, long intended, int out) {
        return new Seq(
                new Request(id, intended, "s", 1000, out, 512, new long[] {1, 2}, Namespace.of("m")), intended, false);
    }

    @Test
    void aHandoverIsCountedAndItsPartsAddUpToTheTtft() {
        Measurement m = new Measurement(new SloConfig(null, null, null, null), 1000 * MS, 0);
        Seq s = seq(0, 0, 4);
        m.arrived(s, 0);
        m.admitted(s, 5 * MS); // prefill queue 5
        m.handedOver(
                s, new Handover(105 * MS, 112 * MS, 120 * MS, 123 * MS, 4096, 1000, 6 * MS, 3 * MS, true), 123 * MS);
        m.firstToken(s, 123 * MS); // prefill 100, handover 7, decode queue 8, restore 3
        m.token(s, 130 * MS); // first decode step 7
        m.token(s, 135 * MS);
        m.token(s, 140 * MS);
        m.completed(s, 140 * MS);
        Seq bad = seq(1, 0, 4);
        m.arrived(bad, 0);
        m.admitted(bad, 1 * MS);
        m.handedOver(bad, new Handover(50 * MS, 51 * MS, 52 * MS, 53 * MS, 4096, 1000, 1 * MS, 1 * MS, false), 53 * MS);
        m.firstToken(bad, 200 * MS);
        m.completed(bad, 200 * MS);
        m.finish(200 * MS);
        assertThat(m.handovers()).isEqualTo(2);
        assertThat(m.handoverBytes()).isEqualTo(8192);
        assertThat(m.handoverTokens()).isEqualTo(2000);
        assertThat(m.pdFallbacks()).isEqualTo(1);
        assertThat(m.handoverTransferNanos()).isEqualTo(7 * MS);
        // the recomputed one has no parts (its first token came after the recompute)
        long[] want = {5, 100, 7, 8, 3, 7};
        long sum = 0;
        for (int i = 0; i < want.length; i++) {
            var h = m.pdStages().get(Measurement.PD_STAGES.get(i));
            assertThat(h.getTotalCount()).as(Measurement.PD_STAGES.get(i)).isEqualTo(1);
            assertThat(h.getValueAtPercentile(50) / 1000.0)
                    .as(Measurement.PD_STAGES.get(i))
                    .isBetween(want[i] - 0.1, want[i] + 0.1);
            if (i < 5) sum += want[i];
        }
        assertThat(sum).isEqualTo(123); // the TTFT
        // handovers.csv: a row per request, the recomputed one too, flagged
        assertThat(m.handoverRecords())
                .containsExactly(
                        new HandoverRecord(0, 0, 5, 100, 7, 8, 3, 123, 7, 4096, 1000, 6, 3, true),
                        new HandoverRecord(1, 0, 1, 49, 1, 1, 1, 200, Double.NaN, 4096, 1000, 1, 1, false));
        HandoverRecord r = m.handoverRecords().get(0);
        assertThat(r.prefillQueueMs() + r.prefillMs() + r.handoverMs() + r.decodeQueueMs() + r.restoreMs())
                .isEqualTo(r.ttftMs());
        assertThat(HandoverRecord.csv(m.handoverRecords()))
                .startsWith(
                        HandoverRecord.CSV_HEADER + "\n0,0.0,5.0,100.0,7.0,8.0,3.0,123.0,7.0,4096,1000,6.0,3.0,true\n")
                .endsWith(",NaN,4096,1000,1.0,1.0,false\n");
    }

    @Test
    void aTransferThatNeverEndedIsUnknownNotZero() {
        Measurement m = new Measurement(new SloConfig(null, null, null, null), 1000 * MS, 0);
        Seq timed = seq(0, 0, 2), failed = seq(1, 0, 2);
        m.arrived(timed, 0);
        m.admitted(timed, 1 * MS);
        m.handedOver(
                timed, new Handover(10 * MS, 14 * MS, 15 * MS, 16 * MS, 4096, 1000, 4 * MS, 1 * MS, true), 16 * MS);
        m.firstToken(timed, 16 * MS);
        m.token(timed, 20 * MS);
        m.completed(timed, 20 * MS);
        m.arrived(failed, 0);
        m.admitted(failed, 1 * MS);
        // the WRITE failed half-way: no transfer time (-1), the decode side recomputes
        m.handedOver(failed, new Handover(10 * MS, 12 * MS, 13 * MS, 13 * MS, 0, 1000, -1, 0, false), 13 * MS);
        m.firstToken(failed, 90 * MS);
        m.token(failed, 95 * MS);
        m.completed(failed, 95 * MS);
        m.finish(95 * MS);
        assertThat(m.handovers()).isEqualTo(2);
        assertThat(m.handoverTransfersTimed()).isEqualTo(1);
        assertThat(m.handoverTransferNanos()).isEqualTo(4 * MS);
        assertThat(m.handoverRecords().get(0).transferMs()).isEqualTo(4.0);
        assertThat(m.handoverRecords().get(1).transferMs()).isNaN();
    }

    @Test
    void noHandoverNoRecord() {
        Measurement m = new Measurement(new SloConfig(null, null, null, null), 1000 * MS, 0);
        Seq s = seq(0, 0, 2);
        m.arrived(s, 0);
        m.admitted(s, 1 * MS);
        m.firstToken(s, 10 * MS);
        m.token(s, 12 * MS);
        m.completed(s, 12 * MS);
        m.finish(12 * MS);
        assertThat(m.handoverRecords()).isEmpty();
    }

    @Test
    void pdTransferIsRefusedWhereItDoesNotApply() {
        assertThatThrownBy(() -> ConfigTree.parse("pd_transfer: direct\n", "c.yaml", null)
                        .bind())
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("c.yaml:1")
                .hasMessageContaining("'pd_transfer'")
                .hasMessageContaining("disaggregated");
        // the emulated model hands over directly: the store path is another target's
        assertThatThrownBy(() -> ConfigTree.parse(
                                "pd: disaggregated\ncluster: {instances: 2}\npd_transfer: store\n", "c.yaml", null)
                        .bind())
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'pd_transfer'")
                .hasMessageContaining("emulated");
        assertThat(ConfigTree.parse(
                                "pd: disaggregated\ncluster: {instances: 2}\npd_transfer: direct\nworkload: {generator: {kind: shared-prefix, groups: 2, prompts_per_group: 2, prefix_tokens: 64, suffix_tokens: 8, output_tokens: 4, block_tokens: 16}, arrival: {process: poisson, rate: 1}}\n",
                                "c.yaml",
                                null)
                        .bind()
                        .pdTransfer()
                        .label())
                .isEqualTo("direct");
    }
}
