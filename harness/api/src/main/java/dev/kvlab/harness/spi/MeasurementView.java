package dev.kvlab.harness.spi;

import java.util.Map;
import org.HdrHistogram.Histogram;

/** The framework's measurement of a cell, as a target reads it for its own figures ({@link TargetCell#extras}). */
public interface MeasurementView {

    /** Measured requests (completed or failed). */
    long requests();

    /** The measured phase's span on the loop's clock: from its origin to its last event (ns). */
    long spanNanos();

    /** Prompt tokens fetched from the remote tier and verified, over the measured requests. */
    long remoteHitTokens();

    /** Bytes fetched, over the measured requests. */
    long fetchedBytes();

    /** PD disaggregation: measured requests whose prompt KV was handed over (ok or not). */
    long handovers();

    /** PD disaggregation: bytes handed over. */
    long handoverBytes();

    /** PD disaggregation: prompt tokens handed over. */
    long handoverTokens();

    /** PD disaggregation: handovers that failed, so that the decode instance recomputed the prompt. */
    long pdFallbacks();

    /** PD disaggregation: summed transfer time of the handovers whose transfer was timed ({@link #handoverTransfersTimed}). */
    long handoverTransferNanos();

    /** PD disaggregation: handovers whose transfer ran to its end and was timed (not one that failed before). */
    long handoverTransfersTimed();

    /** PD disaggregation: summed restore time of the handovers. */
    long handoverRestoreNanos();

    /** PD disaggregation: each stage of a handed-over request's TTFT by name (µs histograms). */
    Map<String, Histogram> pdStages();
}
