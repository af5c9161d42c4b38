package dev.kvlab.harness.api.config;

/**
 * Measurement settings.
 *
 * @param interval  length of one interval histogram, in the run's own clock [10s]
 * @param earlyStop live cells: stop sending once the SLO verdict is decided ({@link EarlyStopConfig}) [off]
 */
public record MeasurementConfig(String interval, EarlyStopConfig earlyStop) {}
