package dev.kvlab.harness.experiments.internal.matrix;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.config.RunConfig;

/**
 * Runs one cell (normally {@code new CellRunner()::run}); {@code wallStartNanos} is {@link System#nanoTime()} at its
 * start; {@code observer} watches its measurement intervals.
 */
@FunctionalInterface
public interface CellExecutor {
    CellResult run(RunConfig config, long wallStartNanos, CellObserver observer);
}
