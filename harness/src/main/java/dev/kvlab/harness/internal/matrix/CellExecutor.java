package dev.kvlab.harness.internal.matrix;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellRunner;
import dev.kvlab.harness.api.config.RunConfig;

/** Runs one cell (normally {@code new CellRunner()::run}); {@code wallStartNanos} is {@link System#nanoTime()} at its start. */
@FunctionalInterface
public interface CellExecutor {
    CellResult run(RunConfig config, long wallStartNanos);

    /** Runs {@code config} with {@code observer} watching it (obs); executors that cannot watch ignore it. */
    default CellResult run(RunConfig config, long wallStartNanos, CellObserver observer) {
        return run(config, wallStartNanos);
    }

    /** {@code runner} as an executor that passes observers on. */
    static CellExecutor of(CellRunner runner) {
        return new CellExecutor() {
            @Override
            public CellResult run(RunConfig config, long wallStartNanos) {
                return runner.run(config, wallStartNanos);
            }

            @Override
            public CellResult run(RunConfig config, long wallStartNanos, CellObserver observer) {
                return runner.run(config, wallStartNanos, observer);
            }
        };
    }
}
