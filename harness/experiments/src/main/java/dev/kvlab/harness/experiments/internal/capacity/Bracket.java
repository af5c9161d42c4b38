package dev.kvlab.harness.experiments.internal.capacity;

import dev.kvlab.harness.api.CapacitySpec;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.List;

/**
 * The decision rule of one capacity search, a pure function of the probes so far (load and pass/fail, in probe
 * order): bracket by doubling from {@code start} until a probe fails (or halving until one passes; from a prediction,
 * by steps growing from the precision: {@link #nextFromPrediction}), then bisect the
 * bracket [highest passing load, lowest failing load above it] until it is narrower than {@code precision}, at most
 * {@code max_probes} probes, never outside [{@code min}, {@code max}]. Deterministic: the same probes give the same
 * next load (so a resumed search retraces its probes).
 */
public final class Bracket {

    /** How a search ended (or {@link #PROBE}: it goes on). */
    public enum Status {
        PROBE,
        CONVERGED,
        MAX_PROBES,
        BELOW_MIN,
        ABOVE_MAX,
        BUDGET;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One probe: its load and whether it passed (a valid probe at or above the target). */
    public record Probe(double load, boolean passed) {}

    /**
     * @param status {@link Status#PROBE} to probe {@code load} next, else why the search stopped
     * @param load   the next load (PROBE only)
     * @param lo     highest passing load (NaN: none)
     * @param hi     lowest failing load above {@code lo} (NaN: none)
     */
    public record Decision(Status status, double load, double lo, double hi) {}

    private Bracket() {}

    public static Decision next(CapacitySpec c, List<Probe> probes) {
        return next(c, c.start(), probes);
    }

    /** {@link #next(CapacitySpec, List)} with the first probe at {@code start} instead of {@code capacity.start}. */
    public static Decision next(CapacitySpec c, double start, List<Probe> probes) {
        return next(c, start, probes, false);
    }

    /**
     * The rule for a search that starts at a prediction of the capacity ({@code predicted}, the twin's): it brackets by
     * steps that grow from the precision, ×(1 + precision), then that step squared, to the fourth, … (at most ×2, the
     * doubling of {@link #next}), and then bisects as {@link #next} does. A prediction within the precision of the
     * capacity is so confirmed by two probes ([prediction, one step up] or [one step down, prediction]: a bracket no
     * wider than the precision), where doubling from it bisected [p, 2p] or [p/2, p] down to the precision (four or five
     * probes, the halving's far below the capacity and the slowest of a live search); one far off is still bracketed
     * in a few more.
     */
    public static Decision nextFromPrediction(CapacitySpec c, double predicted, List<Probe> probes) {
        return next(c, predicted, probes, true);
    }

    /**
     * The step of a search by doubling and halving, and the largest of a search from a prediction: once its step reaches
     * it, a search from a prediction steps exactly as one by doubling does.
     */
    static final double DOUBLING = 2;

    private static Decision next(CapacitySpec c, double start, List<Probe> probes, boolean predicted) {
        if (probes.isEmpty()) return new Decision(Status.PROBE, start, Double.NaN, Double.NaN);
        double lo = Double.NaN;
        for (Probe p : probes) if (p.passed() && !(p.load() <= lo)) lo = p.load();
        double hi = Double.NaN;
        for (Probe p : probes)
            if (!p.passed() && (Double.isNaN(lo) || p.load() > lo) && !(p.load() >= hi)) hi = p.load();
        Decision d = decide(c, lo, hi, predicted ? stepFromPrediction(c, probes.size()) : DOUBLING);
        if (d.status() == Status.PROBE) {
            if (probes.size() >= c.maxProbes()) return new Decision(Status.MAX_PROBES, Double.NaN, lo, hi);
            for (Probe p : probes)
                if (p.load() == d.load())
                    return new Decision(Status.CONVERGED, Double.NaN, lo, hi); // resolution exhausted
        }
        return d;
    }

    /**
     * The bracketing step of a search from a prediction after {@code probes} probes all on one side of it: (1 +
     * precision) to the power 2<sup>probes − 1</sup>, at most {@link #DOUBLING}.
     */
    static double stepFromPrediction(CapacitySpec c, int probes) {
        return Math.min(DOUBLING, Math.pow(1 + c.precision(), Math.pow(2, Math.max(0, probes - 1))));
    }

    /** The next decision on bracket [{@code lo}, {@code hi}], bracketing by {@code step} (×, ÷) while one side is open. */
    private static Decision decide(CapacitySpec c, double lo, double hi, double step) {
        boolean ints = c.integral();
        int digits = digits(c.precision());
        if (Double.isNaN(lo)) { // only failures: halve (step down)
            if (hi <= c.min()) return new Decision(Status.BELOW_MIN, Double.NaN, lo, hi);
            double next;
            if (step == DOUBLING)
                next = ints ? Math.max(Math.floor(hi / 2), Math.ceil(c.min())) : Math.max(hi / 2, c.min());
            else { // rounded up: the bracket it makes is never wider than the step
                double down = roundDecimal(hi / step, digits, RoundingMode.CEILING);
                next = ints ? Math.max(Math.min(Math.ceil(down), hi - 1), Math.ceil(c.min())) : Math.max(down, c.min());
            }
            if (next >= hi) return new Decision(Status.BELOW_MIN, Double.NaN, lo, hi);
            return new Decision(Status.PROBE, next, lo, hi);
        }
        if (Double.isNaN(hi)) { // only passes: double (step up)
            if (lo >= c.max()) return new Decision(Status.ABOVE_MAX, Double.NaN, lo, hi);
            double next;
            if (step == DOUBLING) next = ints ? Math.min(lo * 2, Math.floor(c.max())) : Math.min(lo * 2, c.max());
            else { // rounded down, as above
                double up = roundDecimal(lo * step, digits, RoundingMode.FLOOR);
                if (!(up > lo)) up = lo * step;
                next = ints ? Math.min(Math.max(Math.floor(up), lo + 1), Math.floor(c.max())) : Math.min(up, c.max());
            }
            if (next <= lo) return new Decision(Status.ABOVE_MAX, Double.NaN, lo, hi);
            return new Decision(Status.PROBE, next, lo, hi);
        }
        if ((hi - lo) / lo <= c.precision() || (ints && hi - lo <= 1))
            return new Decision(Status.CONVERGED, Double.NaN, lo, hi);
        double mid = ints ? Math.floor((lo + hi) / 2) : round((lo + hi) / 2, digits(c.precision()));
        if (!(mid > lo && mid < hi)) return new Decision(Status.CONVERGED, Double.NaN, lo, hi);
        return new Decision(Status.PROBE, mid, lo, hi);
    }

    /** Significant digits a midpoint keeps: two more than the precision needs (loads stay short, ids readable). */
    static int digits(double precision) {
        int d = (int) Math.ceil(-Math.log10(precision)) + 2;
        return Math.max(3, Math.min(12, d));
    }

    /**
     * {@code x} to {@code digits} significant digits, half to even, from the double's exact binary value (the midpoint
     * 2.175 is 2.17499…, so 2.17): the loads every search has probed, which a resumed or re-run search retraces.
     */
    static double round(double x, int digits) {
        return new BigDecimal(x)
                .round(new MathContext(digits, RoundingMode.HALF_EVEN))
                .doubleValue();
    }

    /**
     * {@code x} to {@code digits} significant digits by {@code mode} (up or down: a step from a prediction), from its
     * shortest decimal, so that 1.15 rounded down stays 1.15 (its binary value is 1.1499…).
     */
    static double roundDecimal(double x, int digits, RoundingMode mode) {
        return BigDecimal.valueOf(x).round(new MathContext(digits, mode)).doubleValue();
    }

    /** A load as written in messages: the shortest decimal, no exponent, no trailing zeros. */
    public static String format(double load) {
        if (load == Math.rint(load) && Math.abs(load) < 1e15) return Long.toString((long) load);
        return BigDecimal.valueOf(load).stripTrailingZeros().toPlainString();
    }

    /** The longest load text a probe id (and so a cell directory name) carries. */
    static final int MAX_LABEL = 24;

    /**
     * A load as written in probe ids, factor columns and so cell directory names: {@link #format} when it is at most
     * {@value #MAX_LABEL} characters, else Java's shortest round-trip decimal with an exponent ({@code 1.0E300}),
     * which is at most 24 characters. Never longer, only digits, '.', '-' and 'E', and distinct loads get distinct
     * labels (a plain decimal is exact, an exponent form identifies its double, and the two forms never meet).
     */
    public static String label(double load) {
        if (!Double.isFinite(load)) throw new IllegalArgumentException("a load must be finite, got " + load);
        String plain = format(load);
        return plain.length() <= MAX_LABEL ? plain : Double.toString(load);
    }
}
