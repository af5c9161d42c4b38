package dev.kvlab.harness.bundle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.harness.bundle.ReplicateStats.Estimate;
import dev.kvlab.harness.bundle.ReplicateStats;
import java.util.List;
import org.junit.jupiter.api.Test;

/** CI maths against values computed by hand (t quantiles from a printed table). */
class ReplicateStatsTest {

    @Test
    void tQuantilesMatchTheTable() {
        assertThat(ReplicateStats.t975(1)).isCloseTo(12.7062, within(1e-4));
        assertThat(ReplicateStats.t975(2)).isCloseTo(4.3027, within(1e-4));
        assertThat(ReplicateStats.t975(4)).isCloseTo(2.7764, within(1e-4));
        assertThat(ReplicateStats.t975(30)).isCloseTo(2.0423, within(1e-4));
    }

    @Test
    void meanWithStudentInterval() {
        // 1, 2, 3: mean 2, s = 1, half-width = 4.3027 * 1 / sqrt(3) = 2.48414
        Estimate e = ReplicateStats.mean(List.of(1.0, 2.0, 3.0));
        assertThat(e.mean()).isEqualTo(2.0);
        assertThat(e.stdev()).isCloseTo(1.0, within(1e-12));
        assertThat(e.n()).isEqualTo(3);
        assertThat(e.lo()).isCloseTo(2 - 2.48414, within(1e-4));
        assertThat(e.hi()).isCloseTo(2 + 2.48414, within(1e-4));
        // NaN values are left out; one value has no interval
        Estimate one = ReplicateStats.mean(List.of(5.0, Double.NaN));
        assertThat(one.n()).isEqualTo(1);
        assertThat(one.mean()).isEqualTo(5.0);
        assertThat(one.hasInterval()).isFalse();
        assertThat(ReplicateStats.mean(List.of()).n()).isZero();
    }

    @Test
    void pairedDifferences() {
        // d = (3-1, 5-2, 7-4) = (2, 3, 3): mean 8/3, s = 0.57735, half = 4.3027 * 0.57735 / sqrt(3) = 1.43423
        Estimate d = ReplicateStats.paired(List.of(3.0, 5.0, 7.0), List.of(1.0, 2.0, 4.0));
        assertThat(d.mean()).isCloseTo(8.0 / 3, within(1e-12));
        assertThat(d.stdev()).isCloseTo(0.57735, within(1e-5));
        assertThat(d.lo()).isCloseTo(8.0 / 3 - 1.43423, within(1e-4));
        assertThat(d.hi()).isCloseTo(8.0 / 3 + 1.43423, within(1e-4));
        assertThat(d.excludesZero()).isTrue();
        // pairs where either side is NaN are dropped
        assertThat(ReplicateStats.paired(List.of(3.0, Double.NaN, 7.0), List.of(1.0, 2.0, 4.0)).n()).isEqualTo(2);
    }

    @Test
    void welchInterval() {
        // A = 1,2,3 (mean 2, var 1), B = 4,6,8 (mean 6, var 4): se = sqrt(1/3 + 4/3) = 1.29099,
        // df = (5/3)^2 / ((1/3)^2/2 + (4/3)^2/2) = 2.77778 / 0.94444 = 2.94118; t_{0.975, 2.941} ~ 3.22 (between
        // t(3) = 3.1824 and t(2) = 4.3027, interpolated in 1/df: 3.1824 + 0.04 * 1.1203 = 3.227)
        Estimate w = ReplicateStats.welch(List.of(1.0, 2.0, 3.0), List.of(4.0, 6.0, 8.0));
        assertThat(w.mean()).isEqualTo(4.0);
        assertThat(w.stdev()).isCloseTo(1.29099, within(1e-5));
        double half = ReplicateStats.t975(2.94118) * 1.29099;
        assertThat(ReplicateStats.t975(2.94118)).isCloseTo(3.22, within(0.01));
        assertThat(w.lo()).isCloseTo(4 - half, within(1e-3));
        assertThat(w.hi()).isCloseTo(4 + half, within(1e-3));
    }

    /** Issue 32: a ratio's interval is on the log scale: positive, and the same whichever side is on top. */
    @Test
    void ratioIntervalOnTheLogScale() {
        // check 27's combined over none: 28/6.91 and 32/6.91; ln r = 1.3991, 1.5326: mean 1.46585, s = 0.094413,
        // half = 12.7062 * 0.094413 / sqrt(2) = 0.84827
        Estimate r = ReplicateStats.ratio(List.of(28.0, 32.0), List.of(6.91, 6.91));
        assertThat(r.mean()).isCloseTo(Math.sqrt(28.0 * 32.0) / 6.91, within(1e-9));
        assertThat(r.stdev()).isCloseTo(0.094413, within(1e-5));
        assertThat(r.lo()).isCloseTo(Math.exp(1.46585 - 0.84827), within(1e-3));
        assertThat(r.hi()).isCloseTo(Math.exp(1.46585 + 0.84827), within(1e-2));
        assertThat(r.lo()).isGreaterThan(1); // the arithmetic mean's t interval of the same ratios was [0.66, 8.0]
        Estimate inv = ReplicateStats.ratio(List.of(6.91, 6.91), List.of(28.0, 32.0));
        assertThat(inv.lo()).isCloseTo(1 / r.hi(), within(1e-9));
        assertThat(inv.hi()).isCloseTo(1 / r.lo(), within(1e-9));
        // a spread that crosses 1 keeps the interval positive
        Estimate wide = ReplicateStats.ratio(List.of(6.0, 9.0), List.of(6.91, 6.91));
        assertThat(wide.lo()).isPositive().isLessThan(1);
        assertThat(wide.hi()).isGreaterThan(1);
        // pairs where either side is not positive are dropped
        assertThat(ReplicateStats.ratio(List.of(3.0, 0.0, 7.0, Double.NaN), List.of(1.0, 2.0, 4.0, 1.0)).n()).isEqualTo(2);
    }
}
