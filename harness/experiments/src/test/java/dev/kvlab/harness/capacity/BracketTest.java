package dev.kvlab.harness.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.core.Wilson;
import dev.kvlab.harness.experiments.internal.capacity.Bracket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.DoublePredicate;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The search's decision rule: bracketing by doubling and halving, bisection, the give-ups, and its invariants. */
class BracketTest {

    static CapacitySpec spec(String knob, double start, double min, double max, double precision, int maxProbes) {
        return new CapacitySpec(
                knob,
                start,
                min,
                max,
                0.9,
                "attainment",
                precision,
                maxProbes,
                1,
                0,
                0,
                true,
                Map.of(),
                8,
                0,
                0,
                0.10,
                true);
    }

    static CapacitySpec rate(double start, double min, double max, double precision, int maxProbes) {
        return spec("workload.arrival.rate", start, min, max, precision, maxProbes);
    }

    /** Runs the rule against a pass/fail oracle; returns the probes in order and the final decision. */
    record Outcome(List<Bracket.Probe> probes, Bracket.Decision end) {}

    static Outcome search(CapacitySpec c, DoublePredicate passes) {
        return search(c, Double.NaN, passes);
    }

    /** {@link #search} from a prediction ({@link Bracket#nextFromPrediction}; NaN: none, from {@code capacity.start}). */
    static Outcome search(CapacitySpec c, double predicted, DoublePredicate passes) {
        List<Bracket.Probe> ps = new ArrayList<>();
        while (true) {
            Bracket.Decision d =
                    Double.isNaN(predicted) ? Bracket.next(c, ps) : Bracket.nextFromPrediction(c, predicted, ps);
            if (d.status() != Bracket.Status.PROBE) return new Outcome(ps, d);
            ps.add(new Bracket.Probe(d.load(), passes.test(d.load())));
        }
    }

    @Test
    void doublesUntilAFailThenBisects() {
        Outcome o = search(rate(1, 0.01, 1000, 0.01, 30), x -> x <= 5.3);
        assertThat(o.probes().subList(0, 4)).extracting(Bracket.Probe::load).containsExactly(1.0, 2.0, 4.0, 8.0);
        assertThat(o.probes().get(4).load()).isEqualTo(6.0); // the midpoint of [4, 8]
        assertThat(o.end().status()).isEqualTo(Bracket.Status.CONVERGED);
        assertThat(o.end().lo()).isLessThanOrEqualTo(5.3);
        assertThat(o.end().hi()).isGreaterThan(5.3);
        assertThat((o.end().hi() - o.end().lo()) / o.end().lo()).isLessThanOrEqualTo(0.01);
    }

    /**
     * A bisection's midpoint is rounded from the double's exact value, as every search has rounded it (a bundle's probes
     * are retraced by {@code --resume} and {@code verify --rerun}): [2, 2.35] bisects at 2.17, since 2.175 is 2.17499…
     * in binary, where rounding its shortest decimal would give 2.18.
     */
    @Test
    void aMidpointIsRoundedFromItsExactValue() {
        List<Bracket.Probe> ps = List.of(new Bracket.Probe(2, true), new Bracket.Probe(2.35, false));
        assertThat(Bracket.next(rate(2, 0.01, 1000, 0.1, 30), ps).load()).isEqualTo(2.17);
    }

    @Test
    void halvesUntilAPassWhenTheStartFails() {
        Outcome o = search(rate(10, 0.01, 1000, 0.05, 30), x -> x <= 1.7);
        assertThat(o.probes().subList(0, 4)).extracting(Bracket.Probe::load).containsExactly(10.0, 5.0, 2.5, 1.25);
        assertThat(o.end().lo()).isBetween(1.7 / 1.05, 1.7);
    }

    /** From a prediction within the precision of the knee, two probes bracket it to the precision, on either side. */
    @Test
    void aPredictionWithinThePrecisionIsConfirmedByTwoProbes() {
        CapacitySpec c = rate(2, 0.1, 200, 0.15, 8);
        Outcome low = search(c, 5.0, x -> x <= 5.3);
        assertThat(low.probes()).extracting(Bracket.Probe::load).containsExactly(5.0, 5.75);
        assertThat(low.end().status()).isEqualTo(Bracket.Status.CONVERGED);
        Outcome high = search(c, 6.0, x -> x <= 5.3);
        assertThat(high.probes()).extracting(Bracket.Probe::load).containsExactly(6.0, 5.22); // 6 / 1.15 rounded up
        assertThat(high.end().status()).isEqualTo(Bracket.Status.CONVERGED);
        assertThat(high.end().lo()).isEqualTo(5.22);
        // doubling and halving from the same start bisect [5, 10] and [3, 6] down to the precision instead
        assertThat(search(rate(5, 0.1, 200, 0.15, 8), x -> x <= 5.3).probes()).hasSizeGreaterThan(3);
        assertThat(search(rate(6, 0.1, 200, 0.15, 8), x -> x <= 5.3).probes()).hasSizeGreaterThan(3);
    }

    /** A prediction far off is bracketed by steps growing from the precision to doubling, whole numbers for an integral knob. */
    @Test
    void aPredictionFarOffIsStillBracketed() {
        Outcome o = search(rate(2, 0.01, 1000, 0.15, 30), 1.0, x -> x <= 50);
        assertThat(o.probes().subList(0, 4)).extracting(Bracket.Probe::load).containsExactly(1.0, 1.15, 1.52, 2.65);
        assertThat(o.end().lo()).isLessThanOrEqualTo(50).isGreaterThan(50 / 1.15);
        Outcome users = search(spec("workload.arrival.users", 4, 1, 1024, 0.001, 40), 30, x -> x <= 37);
        for (Bracket.Probe p : users.probes()) assertThat(p.load()).isEqualTo(Math.rint(p.load()));
        assertThat(users.end().lo()).isEqualTo(37.0);
        assertThat(users.end().hi()).isEqualTo(38.0);
    }

    @Test
    void givesUpBelowMinAndAboveMaxSayingSo() {
        Outcome never = search(rate(1, 0.1, 100, 0.02, 30), x -> false);
        assertThat(never.end().status()).isEqualTo(Bracket.Status.BELOW_MIN);
        assertThat(never.probes().getLast().load()).isEqualTo(0.1); // min itself is probed once
        assertThat(never.end().lo()).isNaN();
        Outcome always = search(rate(1, 0.1, 100, 0.02, 30), x -> true);
        assertThat(always.end().status()).isEqualTo(Bracket.Status.ABOVE_MAX);
        assertThat(always.probes().getLast().load()).isEqualTo(100.0);
        assertThat(always.end().hi()).isNaN();
    }

    @Test
    void stopsAtMaxProbesWithTheBracket() {
        Outcome o = search(rate(1, 0.001, 1e6, 1e-6, 5), x -> x <= 3.3);
        assertThat(o.probes()).hasSize(5);
        assertThat(o.end().status()).isEqualTo(Bracket.Status.MAX_PROBES);
        assertThat(o.end().lo()).isLessThan(o.end().hi());
    }

    @Test
    void integralKnobsProbeWholeNumbersAndStopAtAGapOfOne() {
        Outcome o = search(spec("workload.arrival.users", 4, 1, 1024, 0.001, 30), x -> x <= 37);
        for (Bracket.Probe p : o.probes()) assertThat(p.load()).isEqualTo(Math.rint(p.load()));
        assertThat(o.end().lo()).isEqualTo(37.0);
        assertThat(o.end().hi()).isEqualTo(38.0);
    }

    @Test
    void theSameProbesGiveTheSameDecision() {
        CapacitySpec c = rate(1, 0.01, 1000, 0.02, 30);
        Outcome o = search(c, x -> x <= 7.77);
        for (int k = 0; k < o.probes().size(); k++) {
            Bracket.Decision again = Bracket.next(c, o.probes().subList(0, k));
            assertThat(again.load()).isEqualTo(o.probes().get(k).load());
        }
    }

    @Test
    void wilsonIntervalsAndUndecidedProbes() {
        Wilson w = Wilson.of(45, 50);
        assertThat(w.lo()).isCloseTo(0.786, org.assertj.core.data.Offset.offset(0.002));
        assertThat(w.hi()).isCloseTo(0.957, org.assertj.core.data.Offset.offset(0.002));
        assertThat(w.straddles(0.9)).isTrue(); // 90% of 50: undecided at 95%
        assertThat(Wilson.of(9990, 10000).straddles(0.9)).isFalse();
        assertThat(Wilson.of(0, 0).lo()).isZero();
    }

    /** By doubling and halving from {@code start}, or from {@code start} as a prediction ({@link Bracket#nextFromPrediction}). */
    @Property(tries = 600)
    void findsTheKneeOfEveryMonotoneCell(
            @ForAll @DoubleRange(min = 0.02, max = 900) double knee,
            @ForAll @DoubleRange(min = 0.05, max = 900) double start,
            @ForAll @IntRange(min = 1, max = 200) int permille,
            @ForAll boolean fromPrediction) {
        double precision = permille / 1000.0;
        CapacitySpec c = rate(start, 0.01, 1000, precision, 200);
        Outcome o = search(c, fromPrediction ? start : Double.NaN, x -> x <= knee);
        assertThat(o.end().status()).isEqualTo(Bracket.Status.CONVERGED);
        assertThat(o.end().lo()).isLessThanOrEqualTo(knee);
        assertThat(o.end().hi()).isGreaterThan(knee);
        assertThat((o.end().hi() - o.end().lo()) / o.end().lo()).isLessThanOrEqualTo(precision);
        for (Bracket.Probe p : o.probes()) assertThat(p.load()).isBetween(0.01, 1000.0);
        assertThat(o.probes().stream().map(Bracket.Probe::load).distinct().count())
                .isEqualTo(o.probes().size()); // no load twice
    }

    @Property(tries = 200)
    void neverProbesOutsideTheBracketEvenOnANonMonotoneCell(
            @ForAll @IntRange(min = 0, max = 1 << 20) int pattern,
            @ForAll @DoubleRange(min = 0.1, max = 100) double start) {
        CapacitySpec c = rate(start, 0.01, 1000, 0.01, 40);
        // pass/fail from the bits of a hash of the load: anything but monotone
        Outcome o = search(c, x -> ((Double.hashCode(x) ^ pattern) & 4) == 0);
        assertThat(o.probes().size()).isLessThanOrEqualTo(40);
        for (int k = 1; k < o.probes().size(); k++) {
            List<Bracket.Probe> before = o.probes().subList(0, k);
            double lo = before.stream()
                    .filter(Bracket.Probe::passed)
                    .mapToDouble(Bracket.Probe::load)
                    .max()
                    .orElse(Double.NaN);
            double x = o.probes().get(k).load();
            if (!Double.isNaN(lo)) assertThat(x).isGreaterThan(lo);
            double hi = before.stream()
                    .filter(p -> !p.passed() && !(p.load() <= lo))
                    .mapToDouble(Bracket.Probe::load)
                    .min()
                    .orElse(Double.NaN);
            if (!Double.isNaN(hi)) assertThat(x).isLessThan(hi);
        }
    }
}
