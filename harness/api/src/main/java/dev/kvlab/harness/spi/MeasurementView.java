package dev.kvlab.harness.spi;

/** The framework's measurement of a cell, as a target reads it for its own figures ({@link TargetCell#extras}). */
public interface MeasurementView {

    /** Measured requests (completed or failed). */
    long requests();
}
