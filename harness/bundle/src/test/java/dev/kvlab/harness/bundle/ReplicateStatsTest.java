package dev.kvlab.harness.bundle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.harness.bundle.ReplicateStats.Estimate;
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
        assertThat(ReplicateStats.paired(List.of(3.0, Double.NaN, 7.0), List.of(1.0, 2.0, 4.0))
                        .n())
                .isEqualTo(2);
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
        assertThat(ReplicateStats.ratio(List.of(3.0, 0.0, 7.0, Double.NaN), List.of(1.0, 2.0, 4.0, 1.0))
                        .n())
                .isEqualTo(2);
    }

    /**
     * Issue 32: two replicates per cell, blocked by seed. Logs (by hand): combined ln 18, ln 29; none ln 5.1, ln 5.3; local
     * ln 7.0, ln 7.4. Residuals of the additive model are ±0.14330, ±0.07593, ±0.06738 (cell and seed means removed), SS =
     * 2 (0.020535 + 0.005765 + 0.004540) = 0.061680, df = (3 - 1)(2 - 1) = 2, σ² = 0.030840; a log ratio's sd sqrt(2σ²) =
     * 0.24835, half-width t(2) · 0.24835 / √2 = 4.3027 · 0.17561 = 0.75561 around ln(geomean ratio).
     */
    @Test
    void blockedRatiosPoolTheResidualOverTheCells() {
        var caps = new java.util.LinkedHashMap<String, List<Double>>();
        caps.put("none", List.of(5.1, 5.3));
        caps.put("local", List.of(7.0, 7.4));
        caps.put("combined", List.of(18.0, 29.0));
        ReplicateStats.Blocked b = ReplicateStats.blockedRatios(caps, "none");
        assertThat(b.df()).isEqualTo(2);
        assertThat(b.cells()).isEqualTo(3);
        assertThat(b.dfOf(b.byCell().get("local"))).isEqualTo(2);
        Estimate c = b.byCell().get("combined");
        double ln = (Math.log(18 / 5.1) + Math.log(29 / 5.3)) / 2;
        assertThat(c.mean()).isCloseTo(Math.exp(ln), within(1e-9));
        assertThat(c.stdev()).isCloseTo(0.24835, within(1e-4));
        assertThat(Math.log(c.lo())).isCloseTo(ln - 0.75561, within(1e-3));
        assertThat(Math.log(c.hi())).isCloseTo(ln + 0.75561, within(1e-3));
        assertThat(c.lo()).isGreaterThan(1); // the pair alone, with t(1), reaches down to 0.5
        assertThat(ReplicateStats.ratio(caps.get("combined"), caps.get("none")).lo())
                .isLessThan(1);
        assertThat(b.byCell()).containsOnlyKeys("local", "combined");
    }

    /** With one cell beside the baseline the blocked interval is the paired one; with fewer than two complete blocks, each cell's own. */
    @Test
    void blockedRatiosReduceToThePairedInterval() {
        var two = new java.util.LinkedHashMap<String, List<Double>>();
        two.put("none", List.of(5.0, 6.0, 5.5));
        two.put("tier", List.of(9.0, 13.0, 10.0));
        Estimate blocked = ReplicateStats.blockedRatios(two, "none").byCell().get("tier");
        Estimate paired = ReplicateStats.ratio(two.get("tier"), two.get("none"));
        assertThat(blocked.lo()).isCloseTo(paired.lo(), within(1e-9));
        assertThat(blocked.hi()).isCloseTo(paired.hi(), within(1e-9));
        var gaps = new java.util.LinkedHashMap<String, List<Double>>();
        gaps.put("none", List.of(5.0, Double.NaN));
        gaps.put("a", List.of(9.0, 10.0));
        gaps.put("b", List.of(Double.NaN, 12.0));
        ReplicateStats.Blocked none = ReplicateStats.blockedRatios(gaps, "none");
        assertThat(none.df()).isZero();
        assertThat(none.method()).contains("own pairs");
        assertThat(none.byCell().get("a").n()).isEqualTo(1);
        assertThat(none.byCell().get("a").hasInterval()).isFalse();
        assertThat(none.dfOf(none.byCell().get("a"))).isZero(); // one pair: no degrees of freedom
    }
}
