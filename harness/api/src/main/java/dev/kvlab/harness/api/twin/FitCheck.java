package dev.kvlab.harness.api.twin;

import java.util.Locale;

/**
 * One timing of a calibrated engine beside the fitted roofline's prediction of it (seconds): what {@code kvlab calibrate
 * --engine} and {@code --endpoint} give back for every figure they timed, so that a regime the fit gets wrong is visible.
 *
 * @param what      what was timed, in words
 * @param measured  the median measured
 * @param predicted the fitted roofline's
 */
public record FitCheck(String what, double measured, double predicted) {

    /** predicted / measured - 1. */
    public double error() {
        return predicted / measured - 1;
    }

    /** As a twin's figures carry it: {@code measured X ms, the roofline Y ms (+Z%)}. */
    public String figure() {
        return String.format(
                Locale.ROOT,
                "measured %.3f ms, the roofline %.3f ms (%+.0f%%)",
                measured * 1e3,
                predicted * 1e3,
                error() * 100);
    }
}
