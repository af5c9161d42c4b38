package dev.kvlab.harness.spi;

import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.Roofline;

/**
 * The sim twin of a real engine as the framework planned it ({@link TargetFramework#twinPlan}): the emulated model on
 * the engine's calibrated shape and "hardware", with the run's store. A target reads it and hands it back to run the
 * twin ({@link TargetFramework#withTwin}) or probe the store path on it ({@link TargetFramework#probeLink}).
 */
public interface TwinPlan extends StorePlan {

    /** The model the twin runs (the engine's shape). */
    ModelSpec model();

    /** The engine's calibrated "hardware". */
    HardwareSpec hardware();

    /** The twin's time model of one instance. */
    Roofline roofline();
}
