package dev.kvlab.harness.api.config;

/**
 * Live cells only: stop sending new requests once the cell's SLO verdict against {@code target} is decided at 95%
 * confidence (binomial), the requests in flight then finish and count. Looks at the share of measured requests
 * meeting every SLO come at {@code minRequests}, 2×, 4×, … completions, each with a Wilson interval at
 * 0.05 / 2<sup>j+1</sup> (Bonferroni over the looks, so the whole test errs at most 5% of the time). A capacity
 * search sets it on its live probes ({@code capacity.early_stop}).
 *
 * <p>No look comes before the measured phase has run {@code minDuration} on the cell's clock either: a probe at a high
 * rate reaches its first look within a second or two, too soon for a queue to build, and a capacity search that asks
 * for {@code min_duration} would otherwise get a probe stopped short of it (invalid, so counted as failing at any
 * attainment: check 27's combined cell had its capacity capped near {@code min_requests / min_duration} this way).
 *
 * @param target      attainment the verdict is against, in (0, 1]; 0 = never stop early [0]
 * @param minRequests completions before the first look, >= 1 when {@code target} is set [100]
 * @param minDuration measured time before the first look, a duration [0s]
 */
public record EarlyStopConfig(double target, long minRequests, String minDuration) {

    /** No time before the first look. */
    public EarlyStopConfig(double target, long minRequests) {
        this(target, minRequests, "0s");
    }

    /** {@code minDuration} in nanoseconds (0 when it is not given). */
    public long minDurationNanos() {
        return minDuration == null
                ? 0
                : dev.kvlab.transport.api.DurationSpec.parse(minDuration).toNanos();
    }

    public boolean enabled() {
        return target > 0;
    }

    /** Refuses a target outside [0, 1], and fewer than 1 request before the first look when it is set. */
    public void check(ConfigCheck check) {
        if (!(target >= 0 && target <= 1))
            throw check.bad("measurement.early_stop.target", "must be in [0, 1] (0 = off), got " + target);
        if (enabled()) check.atLeast("measurement.early_stop.min_requests", minRequests, 1);
        if (minDuration != null) check.nanos("measurement.early_stop.min_duration", minDuration, true);
    }
}
