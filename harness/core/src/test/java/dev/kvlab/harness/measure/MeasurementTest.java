package dev.kvlab.harness.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.harness.api.IntervalHistogram;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.RequestRecord;
import dev.kvlab.harness.api.config.SloConfig;
import dev.kvlab.harness.core.internal.engine.Seq;
import dev.kvlab.harness.core.internal.measure.Measurement;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The metric definitions of DESIGN.md, on a scripted request. */
class MeasurementTest {

    private static final long MS = 1_000_000L;

    private static Seq seq(long id, long intended, int out) {
        Request r = new Request(id, intended, "s", 1000, out, 512, new long[] {1, 2}, Namespace.of("m"));
        return new Seq(r, intended, false);
    }

    @Test
    void latenciesCountFromTheIntendedArrival() {
        Measurement m = new Measurement(new SloConfig(150.0, 25.0, null, null), 1000 * MS, 0);
        Seq s = seq(0, 0, 6);
        m.arrived(s, 30 * MS); // arrived late: latency still counts from 0
        m.admitted(s, 40 * MS);
        m.firstToken(s, 100 * MS);
        long[] at = {110, 120, 170, 180, 200};
        for (long t : at) m.token(s, t * MS);
        m.completed(s, 200 * MS);
        m.finish(200 * MS);
        RequestRecord r = m.records().readAll().get(0);
        assertThat(r.ttftMs()).isEqualTo(100.0);
        assertThat(r.queueMs()).isEqualTo(40.0);
        assertThat(r.e2elMs()).isEqualTo(200.0);
        // tpot = (e2el - ttft) / (out - 1) = 100 / 5
        assertThat(r.tpotMs()).isEqualTo(20.0);
        // gaps 10, 10, 50, 10, 20: the longest 10% (ceil(0.5) = 1 gap) is 50
        assertThat(r.tbtMs()).isEqualTo(50.0);
        assertThat(r.good()).isTrue();
        assertThat(m.total(Metric.ITL).getTotalCount()).isEqualTo(5);
        assertThat(m.total(Metric.ITL).getMaxValue()).isBetween(49_950L, 50_050L);
        assertThat(m.total(Metric.TTFT).getValueAtPercentile(50)).isBetween(99_900L, 100_100L);
    }

    @Test
    void tbtIsTheMeanOfTheLongestTenPercent() {
        Measurement m = new Measurement(new SloConfig(null, null, 30.0, null), 1000 * MS, 0);
        Seq s = seq(0, 0, 21); // 20 gaps: the longest 2
        m.arrived(s, 0);
        m.firstToken(s, 10 * MS);
        long t = 10;
        for (int i = 0; i < 20; i++) {
            t += i == 3 ? 40 : i == 15 ? 60 : 5;
            m.token(s, t * MS);
        }
        m.completed(s, t * MS);
        assertThat(m.records().readAll().get(0).tbtMs()).isEqualTo(50.0);
        assertThat(m.records().readAll().get(0).good()).isFalse(); // tbt 50 > 30
        assertThat(m.good()).isZero();
    }

    @Test
    void oneOutputTokenHasNoTpotAndGoodputCountsEverySlo() {
        Measurement m = new Measurement(new SloConfig(100.0, null, null, null), 1000 * MS, 0);
        Seq a = seq(0, 0, 1);
        m.arrived(a, 0);
        m.firstToken(a, 50 * MS);
        m.completed(a, 50 * MS);
        Seq b = seq(1, 0, 1);
        m.arrived(b, 0);
        m.firstToken(b, 150 * MS);
        m.completed(b, 150 * MS);
        m.finish(150 * MS);
        assertThat(m.records().readAll().get(0).tpotMs()).isNaN();
        assertThat(m.total(Metric.TPOT).getTotalCount()).isZero();
        assertThat(m.good()).isEqualTo(1);
        assertThat(m.spanNanos()).isEqualTo(150 * MS);
    }

    @Test
    void requestsWaitingPastTheTtftSloAreKnownMissesBeforeTheyEnd() {
        Measurement m = new Measurement(new SloConfig(100.0, null, null, null), 1000 * MS, 0);
        m.watchWaiting();
        Seq a = seq(0, 0, 2), b = seq(1, 10 * MS, 2), c = seq(2, 10 * MS, 2), d = seq(3, 90 * MS, 2);
        for (Seq s : List.of(a, b, c, d)) m.arrived(s, s.intendedNanos());
        assertThat(m.missedWhileWaiting(100 * MS))
                .as("none waited longer than 100 ms yet")
                .isZero();
        assertThat(m.missedWhileWaiting(150 * MS))
                .as("a, b and c (two intended at the same time) past 100 ms")
                .isEqualTo(3);
        m.firstToken(a, 160 * MS); // late, but it has its first token: its verdict comes when it ends
        m.failed(b, 160 * MS); // ended: counted with the failures, not here
        assertThat(m.missedWhileWaiting(170 * MS)).isEqualTo(1);
        m.firstToken(c, 170 * MS);
        assertThat(m.missedWhileWaiting(195 * MS)).as("d, intended at 90 ms").isEqualTo(1);
        m.completed(d, 195 * MS); // d ended (no first token seen): no longer waiting
        assertThat(m.missedWhileWaiting(10_000 * MS)).isZero();
        Measurement noTtft = new Measurement(new SloConfig(null, 25.0, null, null), 1000 * MS, 0);
        noTtft.watchWaiting();
        assertThat(noTtft.missedWhileWaiting(10_000 * MS))
                .as("no TTFT SLO: nothing is known before a request ends")
                .isZero();
        // only a cell that stops early keeps the waiting requests; asking without it is a programming error, not 0
        Measurement unwatched = new Measurement(new SloConfig(100.0, null, null, null), 1000 * MS, 0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> unwatched.missedWhileWaiting(0))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void intervalHistogramsFollowTheRunsOwnClock() {
        Measurement m = new Measurement(new SloConfig(null, null, null, null), 10 * MS, 1000 * MS);
        for (int i = 0; i < 5; i++) {
            Seq s = seq(i, 1000 * MS + i * 10 * MS, 1);
            m.arrived(s, s.intendedNanos);
            m.firstToken(s, s.intendedNanos + 3 * MS);
            m.completed(s, s.intendedNanos + 3 * MS);
        }
        m.finish(1045 * MS);
        List<IntervalHistogram> ttft = m.intervals().get(Metric.TTFT);
        assertThat(ttft).hasSize(5);
        assertThat(ttft.get(0).startNanos()).isZero();
        assertThat(ttft.get(1).startNanos()).isEqualTo(10 * MS);
        assertThat(ttft).allSatisfy(h -> assertThat(h.count()).isEqualTo(1));
        assertThat(ttft.get(2).histogram().getStartTimeStamp()).isEqualTo(20);
        assertThat(ttft.get(2).histogram().getEndTimeStamp()).isEqualTo(30);
        assertThat(ttft.get(2).histogram().getMean()).isCloseTo(3000, within(5.0));
        long sum = ttft.stream().mapToLong(IntervalHistogram::count).sum();
        assertThat(sum).isEqualTo(m.total(Metric.TTFT).getTotalCount());
    }

    /** A request that fails after its first token and some tokens is counted, never timed: no TTFT, ITL or E2EL sample. */
    @Test
    void aRequestThatFailsAfterItsFirstTokenGivesNoLatencySample() {
        Measurement m = new Measurement(new SloConfig(null, null, null, null), 10 * MS, 0);
        Seq ok = seq(0, 0, 3), bad = seq(1, 0, 4);
        m.arrived(ok, 0);
        m.arrived(bad, 0);
        m.firstToken(bad, 5 * MS);
        m.token(bad, 7 * MS);
        m.token(bad, 9 * MS);
        m.firstToken(ok, 12 * MS);
        m.token(ok, 15 * MS);
        m.token(ok, 25 * MS);
        m.failed(bad, 30 * MS);
        m.completed(ok, 25 * MS);
        m.finish(40 * MS);
        assertThat(m.failed()).isEqualTo(1);
        assertThat(m.completed()).isEqualTo(1);
        for (Metric x : List.of(Metric.TTFT, Metric.E2EL, Metric.TPOT, Metric.TBT))
            assertThat(m.total(x).getTotalCount()).as(x.id()).isEqualTo(1);
        assertThat(m.total(Metric.ITL).getTotalCount()).isEqualTo(2); // the completed request's two gaps only
        assertThat(m.total(Metric.ITL).getMaxValue()).isBetween(9_990L, 10_010L);
        assertThat(m.total(Metric.TTFT).getValueAtPercentile(50)).isBetween(11_990L, 12_010L);
        for (Metric x : List.of(Metric.TTFT, Metric.ITL)) // the interval logs hold what the totals hold
        assertThat(m.intervals().get(x).stream()
                            .mapToLong(IntervalHistogram::count)
                            .sum())
                    .as(x.id())
                    .isEqualTo(m.total(x).getTotalCount());
        RequestRecord r = m.records().readAll().stream()
                .filter(x -> x.id() == 1)
                .findFirst()
                .orElseThrow();
        assertThat(r.ttftMs()).isNaN();
    }

    @Test
    void whenEveryRequestFailsNoSuccessMetricHasASample() {
        Measurement m = new Measurement(new SloConfig(null, null, null, null), 10 * MS, 0);
        for (int i = 0; i < 3; i++) {
            Seq s = seq(i, 0, 4);
            m.arrived(s, 0);
            m.firstToken(s, 3 * MS);
            m.token(s, 4 * MS);
            m.failed(s, 5 * MS);
        }
        m.finish(5 * MS);
        for (Metric x : List.of(Metric.TTFT, Metric.ITL, Metric.E2EL, Metric.TPOT, Metric.TBT))
            assertThat(m.total(x).getTotalCount()).as(x.id()).isZero();
    }
}
