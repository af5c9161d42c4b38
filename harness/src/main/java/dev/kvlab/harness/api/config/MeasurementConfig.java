package dev.kvlab.harness.api.config;

/**
 * Measurement settings.
 *
 * @param interval length of one interval histogram, in the run's own clock [10s]
 */
public record MeasurementConfig(String interval) {}
