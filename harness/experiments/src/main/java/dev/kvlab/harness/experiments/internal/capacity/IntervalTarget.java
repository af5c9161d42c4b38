package dev.kvlab.harness.experiments.internal.capacity;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.bundle.ReplicateStats;
import java.util.List;
import java.util.Locale;

/**
 * {@code capacity.half_width} and {@code capacity.max_replicates}: whether a searched cell's replicates give its
 * capacity to the width asked (Student-t 95% half-width at most {@code half_width} x the mean), and if not, how many
 * replicates it runs next. The next count is Stein's two-stage estimate from the replicates so far, {@code n' =
 * ceil((t(0.975, n-1) s / (half_width x mean))^2)}, at least {@value #STEP} more and at most {@code max_replicates};
 * the cell is judged again once they have run, until it meets the target or reaches the cap. Decided only from the
 * recorded capacities, so a rerun or a resumed run adds the same replicates.
 *
 * @param replicates the replicates judged (with a capacity or not)
 * @param initial    the replicates every searched cell starts with
 * @param cap        the most it may run ({@code max_replicates}, or {@code initial})
 * @param estimate   the capacity across them
 * @param halfWidth  the target: half-width over mean at most this
 * @param next       the replicates to run in all: {@code replicates} when the cell is settled (met, at its cap, or
 *                   without an interval to judge), more when it gets more
 */
public record IntervalTarget(
        int replicates, int initial, int cap, ReplicateStats.Estimate estimate, double halfWidth, int next) {

    /** Replicates added at least per round (one more rarely moves a t interval enough to be worth a round). */
    public static final int STEP = 2;

    /** Judges the capacities of a searched cell's {@code replicates} (NaN where a replicate found none). */
    public static IntervalTarget judge(CapacitySpec c, int initial, List<Double> capacities) {
        int n = capacities.size();
        int cap = c.replicateCap(initial);
        ReplicateStats.Estimate e = ReplicateStats.mean(capacities);
        double share = share(e);
        int next = n;
        if (n < cap && e.hasInterval() && e.mean() > 0 && share > c.halfWidth()) {
            double ratio = ReplicateStats.t975(e.n() - 1) * e.stdev() / (c.halfWidth() * e.mean());
            long stein = (long) Math.ceil(ratio * ratio) + (n - e.n()); // the replicates without a capacity count too
            next = (int) Math.min(cap, Math.max(n + STEP, stein));
        }
        return new IntervalTarget(n, initial, cap, e, c.halfWidth(), next);
    }

    /** The 95% half-width as a share of the mean (NaN without an interval). */
    static double share(ReplicateStats.Estimate e) {
        return e.hasInterval() && e.mean() != 0 ? (e.hi() - e.lo()) / 2 / Math.abs(e.mean()) : Double.NaN;
    }

    /** The half-width over the mean (NaN without an interval). */
    public double share() {
        return share(estimate);
    }

    /** Whether the cell is done: no more replicates to run. */
    public boolean settled() {
        return next == replicates;
    }

    /** The interval is within the target. */
    public boolean met() {
        return share() <= halfWidth;
    }

    /** The interval is wider than the target (the {@code wide} flag); false without an interval. */
    public boolean wide() {
        return share() > halfWidth;
    }

    /** capacity.json's per-cell {@code replicate_target}. */
    public ObjectNode json() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("half_width", halfWidth);
        o.put("replicates", replicates);
        o.put("started_with", initial);
        o.put("max_replicates", cap);
        o.set("half_width_share", CapacityResults.num(share()));
        o.put("met", met());
        o.put("text", text());
        return o;
    }

    /** In plain words: met after how many replicates, or why not. */
    public String text() {
        String target = String.format(Locale.ROOT, "+-%.0f%%", 100 * halfWidth);
        if (!estimate.hasInterval())
            return "no interval: " + estimate.n() + " of " + replicates
                    + " replicates found a capacity (an interval needs 2)";
        String got = String.format(Locale.ROOT, "+-%.1f%%", 100 * share());
        String added = replicates > initial
                ? " (" + (replicates - initial) + " added to the " + initial + " it started with)"
                : "";
        if (met()) return "within " + target + ": " + got + " after " + replicates + " replicates" + added;
        if (cap > initial)
            return "not within " + target + " at max_replicates " + cap + ": " + got + " after " + replicates
                    + " replicates" + added + "; the data cannot give this capacity to " + target
                    + " within the budget: a rough figure, not an answer";
        return "not within " + target + ": " + got + " after " + replicates
                + " replicates (capacity.max_replicates would add more)";
    }
}
