package dev.kvlab.harness.core.internal.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.harness.spi.LinkProbe;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The link probe's fit: a line through the median fetch time of each size, and when two groups of rounds agree. */
class LinkProbeFitTest {

    private static final long BLOCK = 6L << 20;
    private static final int[] SIZES = {1, 4, 8, 12};

    /** Rounds of a path with {@code latencyNs} fixed cost and {@code bw} bytes/s, lookup 100 us, with noise and one wild round per size. */
    private static long[][] rounds(double latencyNs, double bw, long seed) {
        Random r = new Random(seed);
        long[][] g = new long[1 + SIZES.length][9];
        for (int j = 0; j < 9; j++) {
            g[0][j] = 100_000 + r.nextInt(20_000);
            for (int i = 0; i < SIZES.length; i++) {
                double t = 100_000 + latencyNs + SIZES[i] * BLOCK / bw * 1e9;
                g[1 + i][j] =
                        Math.round(t * (0.97 + 0.06 * r.nextDouble()) * (j == i ? 3 : 1)); // a slow round now and then
            }
        }
        return g;
    }

    @Test
    void recoversLatencyAndBandwidthDespiteAWildRoundPerSize() {
        LinkProbe f = LinkProbe.fit(rounds(400_000, 2e9, 1), SIZES, BLOCK, 9, 0);
        assertThat((double) f.lookupNanos()).isCloseTo(110_000, within(12_000.0));
        assertThat(f.bytesPerSecond() / 2e9).isCloseTo(1.0, within(0.05));
        assertThat(f.latencySeconds() * 1e6).as("latency us").isCloseTo(400, within(250.0));
    }

    @Test
    void aFixedCostBelowZeroIsClippedToNone() {
        long[][] g = rounds(0, 2e9, 2);
        for (int j = 0; j < 9; j++) g[1][j] -= 200_000; // one block faster than the line: the intercept goes negative
        LinkProbe f = LinkProbe.fit(g, SIZES, BLOCK, 9, 0);
        assertThat(f.latencySeconds()).isZero();
    }

    @Test
    void groupsAgreeWhenTheyPredictTheSameFetchTimes() {
        LinkProbe a = LinkProbe.fit(rounds(300_000, 2e9, 3), SIZES, BLOCK, 9, 0);
        LinkProbe b = LinkProbe.fit(rounds(300_000, 2e9, 4), SIZES, BLOCK, 9, 0);
        LinkProbe slow = LinkProbe.fit(rounds(300_000, 1.4e9, 5), SIZES, BLOCK, 9, 0);
        assertThat(a.agrees(b, 12, BLOCK)).isTrue();
        assertThat(a.agrees(slow, 12, BLOCK))
                .as("a group 30% slower (the JIT still busy)")
                .isFalse();
    }

    @Test
    void aCellsStartAndEndProbesAreBracketedByTimePerByte() {
        LinkProbe start = new LinkProbe(100_000, 200e-6, 2e9, 18, 0), end = new LinkProbe(300_000, 400e-6, 1e9, 27, 1);
        LinkProbe b = LinkProbe.bracket(start, end);
        assertThat(b.bytesPerSecond())
                .as("1 GB at 2 and at 1 GB/s: 0.75 s on average")
                .isCloseTo(1e9 / 0.75, within(1.0));
        assertThat(b.latencySeconds()).isCloseTo(300e-6, within(1e-12));
        assertThat(b.lookupNanos()).isEqualTo(200_000);
        assertThat(b.rounds()).isEqualTo(45);
        assertThat(b.reputs()).isEqualTo(1);
    }

    @Test
    void theWakeIsTheMedianPairedDifferenceNeverBelowNothing() {
        LinkProbe p = new LinkProbe(100_000, 0, 2e9, 18, 0);
        // pairs: after idle, right behind; one wild pair each way does not move the median
        long[] idle = {900_000, 1_000_000, 950_000, 5_000_000, 920_000},
                behind = {500_000, 600_000, 540_000, 500_000, 2_000_000};
        assertThat(p.withWake(idle, behind).wakeSeconds() * 1e6).as("wake us").isCloseTo(400, within(1.0));
        assertThat(p.withWake(behind, idle).wakeSeconds())
                .as("faster after idle: no wake")
                .isZero();
        LinkProbe b = LinkProbe.bracket(p.withWake(idle, behind), p);
        assertThat(b.wakeSeconds() * 1e6)
                .as("bracketed with an unmeasured one: the measured")
                .isCloseTo(400, within(1.0));
        LinkProbe none = p.withWake(behind, idle);
        assertThat(LinkProbe.bracket(p.withWake(idle, behind), none).wakeSeconds() * 1e6)
                .as("bracketed: the mean")
                .isCloseTo(200, within(1.0));
        assertThat(p.twinModel("tcp").wakeSeconds(1_000_000_000L))
                .as("no wake measured: none charged")
                .isZero();
        assertThat(p.withWake(idle, behind).twinModel("tcp").wakeSeconds(1_000_000_000L) * 1e6)
                .isCloseTo(400, within(1.0));
    }
}
