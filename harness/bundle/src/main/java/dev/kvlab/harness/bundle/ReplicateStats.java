package dev.kvlab.harness.bundle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.math3.distribution.TDistribution;

/**
 * Confidence intervals across replicates: the Student-t 95% interval of a mean, of a paired difference, of a ratio
 * (on the log scale), and Welch's interval of the difference of two independent means. NaN values are left out; an
 * interval needs n >= 2.
 */
public final class ReplicateStats {

    private ReplicateStats() {}

    /**
     * @param mean  mean (NaN when n = 0)
     * @param stdev sample standard deviation (NaN when n < 2)
     * @param n     values used
     * @param lo    lower 95% bound (NaN when n < 2)
     * @param hi    upper 95% bound (NaN when n < 2)
     */
    public record Estimate(double mean, double stdev, int n, double lo, double hi) {
        public boolean hasInterval() {
            return n >= 2 && !Double.isNaN(lo);
        }

        /** The interval excludes 0. */
        public boolean excludesZero() {
            return hasInterval() && (lo > 0 || hi < 0);
        }
    }

    /** The two-sided 95% Student-t quantile for {@code df} degrees of freedom (t_{0.975, df}). */
    public static double t975(double df) {
        return new TDistribution(null, df).inverseCumulativeProbability(0.975);
    }

    public static Estimate mean(List<Double> values) {
        List<Double> v = finite(values);
        int n = v.size();
        if (n == 0) return new Estimate(Double.NaN, Double.NaN, 0, Double.NaN, Double.NaN);
        double sum = 0;
        for (double x : v) sum += x;
        double mean = sum / n;
        if (n < 2) return new Estimate(mean, Double.NaN, 1, Double.NaN, Double.NaN);
        double ss = 0;
        for (double x : v) ss += (x - mean) * (x - mean);
        double sd = Math.sqrt(ss / (n - 1));
        double half = t975(n - 1) * sd / Math.sqrt(n);
        return new Estimate(mean, sd, n, mean - half, mean + half);
    }

    /** Paired differences {@code a[k] - b[k]} over the indices where both are finite. */
    public static Estimate paired(List<Double> a, List<Double> b) {
        return mean(pairs(a, b, false, (x, y) -> x - y));
    }

    /** {@code f(a[k], b[k])} over the indices where both are finite (and positive, when {@code positive}). */
    private static List<Double> pairs(
            List<Double> a, List<Double> b, boolean positive, java.util.function.DoubleBinaryOperator f) {
        List<Double> out = new ArrayList<>();
        for (int k = 0; k < Math.min(a.size(), b.size()); k++) {
            Double x = a.get(k), y = b.get(k);
            if (x == null || y == null || !Double.isFinite(x) || !Double.isFinite(y)) continue;
            if (positive && !(x > 0 && y > 0)) continue;
            out.add(f.applyAsDouble(x, y));
        }
        return out;
    }

    /**
     * Paired ratios {@code a[k] / b[k]} (both finite and positive) as a ratio is estimated: on the log scale, so the
     * interval of a ratio of positive quantities stays positive and is symmetric in which of the two is on top (as a
     * geometric mean ratio is, in bioequivalence): {@code mean} is the geometric mean of the ratios, {@code stdev} the
     * standard deviation of their logarithms, and the interval {@code exp(mean(ln r) ± t·sd/√n)}.
     */
    public static Estimate ratio(List<Double> a, List<Double> b) {
        Estimate l = mean(pairs(a, b, true, (x, y) -> Math.log(x / y)));
        return new Estimate(Math.exp(l.mean()), l.stdev(), l.n(), Math.exp(l.lo()), Math.exp(l.hi()));
    }

    /**
     * Each cell's ratio to {@code baseline} from a design blocked by seed (replicate {@code k} of every cell ran with the
     * same seed): on the log scale, the additive model {@code ln c[cell][k] = cell effect + seed effect + error}, whose
     * error variance is pooled over every cell and complete block (the randomized complete block design's residual, with
     * {@code (cells - 1)(blocks - 1)} degrees of freedom). A cell's ratio is the geometric mean of its own paired ratios
     * (as {@link #ratio}); its interval is {@code exp(mean(ln r) ± t(df) · sqrt(2σ² / n))}. With one cell beside the
     * baseline this is exactly {@link #ratio}'s paired interval; with more it no longer rests on one cell's
     * {@code n - 1} degrees of freedom (two replicates give t(1) = 12.7, an interval too wide to decide anything) but on
     * the spread of every cell around the model. Where fewer than two complete blocks exist, each cell falls back to
     * {@link #ratio}. Cells with no value are left out of the pooled residual.
     *
     * @return for every cell but the baseline, its ratio estimate ({@code stdev}: the pooled σ of a log ratio,
     *         {@code sqrt(2σ²)})
     */
    public static Blocked blockedRatios(Map<String, List<Double>> byCell, String baseline) {
        List<Double> base = byCell.get(baseline);
        Map<String, Estimate> out = new LinkedHashMap<>();
        if (base == null) return new Blocked(out, 0, 0);
        List<List<Double>> present = new ArrayList<>();
        for (List<Double> v : byCell.values())
            if (v.stream().anyMatch(x -> x != null && x > 0 && Double.isFinite(x))) present.add(v);
        int most = 0;
        for (List<Double> v : present) most = Math.max(most, v.size());
        List<Integer> blocks = new ArrayList<>();
        for (int k = 0; k < most; k++) {
            boolean all = true;
            for (List<Double> v : present) {
                Double x = k < v.size() ? v.get(k) : null;
                all &= x != null && x > 0 && Double.isFinite(x);
            }
            if (all) blocks.add(k);
        }
        int cells = present.size(), b = blocks.size(), df = (cells - 1) * (b - 1);
        double sigma2 = Double.NaN;
        if (cells >= 2 && b >= 2) {
            double[][] x = new double[cells][b];
            double grand = 0;
            double[] rowMean = new double[cells], colMean = new double[b];
            for (int i = 0; i < cells; i++)
                for (int j = 0; j < b; j++) {
                    x[i][j] = Math.log(present.get(i).get(blocks.get(j)));
                    rowMean[i] += x[i][j] / b;
                    colMean[j] += x[i][j] / cells;
                    grand += x[i][j] / (cells * b);
                }
            double ss = 0;
            for (int i = 0; i < cells; i++)
                for (int j = 0; j < b; j++) {
                    double r = x[i][j] - rowMean[i] - colMean[j] + grand;
                    ss += r * r;
                }
            sigma2 = ss / df;
        }
        boolean pooled = sigma2 >= 0;
        for (var e : byCell.entrySet()) {
            if (e.getKey().equals(baseline)) continue;
            Estimate own = ratio(e.getValue(), base);
            if (!pooled || own.n() < 1) {
                out.put(e.getKey(), own);
                continue;
            }
            double lnMean = Math.log(own.mean()), sd = Math.sqrt(2 * sigma2), half = t975(df) * sd / Math.sqrt(own.n());
            out.put(
                    e.getKey(),
                    new Estimate(own.mean(), sd, own.n(), Math.exp(lnMean - half), Math.exp(lnMean + half)));
        }
        return new Blocked(out, pooled ? cells : 0, pooled ? df : 0);
    }

    /**
     * {@link #blockedRatios}' answer.
     *
     * @param byCell every cell's ratio to the baseline
     * @param cells  cells whose spread the residual pools (0: none pooled, each interval is its own paired one)
     * @param df     the pooled residual's degrees of freedom (0: none pooled)
     */
    public record Blocked(Map<String, Estimate> byCell, int cells, int df) {
        /** The degrees of freedom of {@code e}'s interval (one of {@link #byCell}): the pooled residual's, else its own pairs'. */
        public int dfOf(Estimate e) {
            return df > 0 ? df : Math.max(0, e.n() - 1);
        }

        /** How the intervals were made, in words for a reader of the bundle. */
        public String method() {
            return cells == 0
                    ? "paired by seed, each cell's own pairs (t with pairs - 1 degrees of freedom)"
                    : "blocked by seed: the log-scale residual pooled over " + cells + " cells (t with " + df
                            + " degrees of freedom)";
        }
    }

    /** Welch's interval for {@code mean(b) - mean(a)} (independent samples). */
    public static Estimate welch(List<Double> a, List<Double> b) {
        Estimate ea = mean(a), eb = mean(b);
        double diff = eb.mean() - ea.mean();
        int n = Math.min(ea.n(), eb.n());
        if (ea.n() < 2 || eb.n() < 2) return new Estimate(diff, Double.NaN, n, Double.NaN, Double.NaN);
        double va = ea.stdev() * ea.stdev() / ea.n(), vb = eb.stdev() * eb.stdev() / eb.n();
        double se = Math.sqrt(va + vb);
        if (se == 0) return new Estimate(diff, 0, n, diff, diff);
        double df = (va + vb) * (va + vb) / (va * va / (ea.n() - 1) + vb * vb / (eb.n() - 1));
        double half = t975(df) * se;
        return new Estimate(diff, se, n, diff - half, diff + half);
    }

    private static List<Double> finite(List<Double> values) {
        List<Double> v = new ArrayList<>();
        for (Double x : values) if (x != null && Double.isFinite(x)) v.add(x);
        return v;
    }
}
