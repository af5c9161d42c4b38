package dev.kvlab.harness.core.internal.measure;

import dev.kvlab.harness.api.config.EarlyStopConfig;
import dev.kvlab.harness.core.Wilson;

/**
 * The sequential binomial test behind {@link EarlyStopConfig}: at look {@code j} (after {@code minRequests · 2^j}
 * completions) the Wilson interval of good / completed at two-sided level {@code 0.05 / 2^(j+1)} either lies
 * wholly at or above the target (pass), wholly below it (fail) or straddles it (go on). Not thread-safe: asked on
 * the cell's loop thread.
 *
 * <p>A pass also needs the look's <b>later half</b> (the requests completed since half the look's count) to meet the
 * target on its own. The binomial test takes the outcomes as independent draws of one attainment; a load above capacity
 * breaks that: its queue grows through the probe, so every request does worse than the one before. A short probe then
 * passes on its early requests before its queue has built (measured on a real engine: probes of 54 requests passed at
 * 6.9 req/s where 115-request probes failed at 6.25), and a capacity search reads a capacity above what the engine
 * sustains. A stationary load's later half meets the target as often as its whole; a growing queue's does not, and its
 * probe goes on until it fails or runs out.
 */
public final class EarlyStop {

    /** The verdict so far. */
    public enum Verdict {
        UNDECIDED,
        PASS,
        FAIL
    }

    private final double target;
    private long nextLook;
    private int look;
    private Verdict verdict = Verdict.UNDECIDED;
    private long decidedAt;
    /** Good and measured requests when half the next look's count had completed (-1: not yet). */
    private long halfGood = -1, halfN = -1;

    public EarlyStop(EarlyStopConfig c) {
        this.target = c.target();
        this.nextLook = Math.max(1, c.minRequests());
    }

    /** Whether the verdict is decided after {@code good} of {@code n} measured requests met every SLO. */
    public boolean decided(long good, long n) {
        if (verdict != Verdict.UNDECIDED) return true;
        if (n >= nextLook) {
            double z = zTwoSided(0.05 / Math.pow(2, look + 1));
            Wilson w = Wilson.of(good, n, z);
            if (w.lo() >= target && laterHalfMeets(good, n)) verdict = Verdict.PASS;
            else if (w.hi() < target) verdict = Verdict.FAIL;
            if (verdict != Verdict.UNDECIDED) {
                decidedAt = n;
                return true;
            }
            look++;
            nextLook = Math.max(nextLook + 1, nextLook * 2);
            halfN = -1;
        }
        if (halfN < 0 && 2 * n >= nextLook) { // half the next look's count: its later half starts here
            halfGood = good;
            halfN = n;
        }
        return false;
    }

    /** Whether the requests since the half snapshot (all of them, where none was taken) meet the target on their own. */
    private boolean laterHalfMeets(long good, long n) {
        return halfN < 0 ? good >= target * n : good - halfGood >= target * (n - halfN);
    }

    public Verdict verdict() {
        return verdict;
    }

    /** Completions when the verdict was decided (0 while undecided). */
    public long decidedAt() {
        return decidedAt;
    }

    /** The standard normal quantile at {@code 1 - alpha/2} (Acklam's rational approximation, relative error < 1.2e-9). */
    static double zTwoSided(double alpha) {
        return normalQuantile(1 - alpha / 2);
    }

    static double normalQuantile(double p) {
        final double[] a = {
            -3.969683028665376e+01,
            2.209460984245205e+02,
            -2.759285104469687e+02,
            1.383577518672690e+02,
            -3.066479806614716e+01,
            2.506628277459239e+00
        };
        final double[] b = {
            -5.447609879822406e+01,
            1.615858368580409e+02,
            -1.556989798598866e+02,
            6.680131188771972e+01,
            -1.328068155288572e+01
        };
        final double[] c = {
            -7.784894002430293e-03,
            -3.223964580411365e-01,
            -2.400758277161838e+00,
            -2.549732539343734e+00,
            4.374664141464968e+00,
            2.938163982698783e+00
        };
        final double[] d = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
        double pl = 0.02425;
        if (p < pl) {
            double q = Math.sqrt(-2 * Math.log(p));
            return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                    / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        }
        if (p > 1 - pl) {
            double q = Math.sqrt(-2 * Math.log(1 - p));
            return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                    / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        }
        double q = p - 0.5, r = q * q;
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5])
                * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
}
