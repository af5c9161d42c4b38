package dev.kvlab.harness.api.config;

/**
 * Measurement settings.
 *
 * @param interval  length of one interval histogram, in the run's own clock [10s]
 * @param earlyStop live cells: stop sending once the SLO verdict is decided ({@link EarlyStopConfig}) [off]
 */
public record MeasurementConfig(String interval, EarlyStopConfig earlyStop) {

    /** These settings with {@code e} as the early stop. */
    public MeasurementConfig withEarlyStop(EarlyStopConfig e) {
        return new MeasurementConfig(interval, e);
    }

    /** Checks the interval (at least 1 ms) and the early stop; returns the interval in nanoseconds. */
    public long checkedIntervalNanos(ConfigCheck check) {
        long nanos = check.nanos("measurement.interval", interval, false);
        check.need("measurement.early_stop", earlyStop).check(check);
        if (nanos < 1_000_000L) throw check.bad("measurement.interval", "must be >= 1ms");
        return nanos;
    }
}
