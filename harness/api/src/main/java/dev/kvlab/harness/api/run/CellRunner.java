package dev.kvlab.harness.api.run;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.config.RunConfig;

/**
 * Runs one cell: a resolved {@link RunConfig} (seed and mode included) in, a {@link CellResult} out, served by the
 * config's target ({@link Targets}; none named: the emulated serving model). The config is validated again first
 * ({@link BadInputException} before anything runs). Emulated sim cells are single-threaded and deterministic;
 * emulated live cells start an embedded store (or connect to {@code kvlab://}) and stop it before returning, then
 * run their sim twin whose figures join the live cell's. A runner holds no state between cells; cells may run one
 * after another on one runner.
 */
public final class CellRunner {

    private final Targets targets = Targets.discover();

    /** Runs {@code config}; wall time counts from now. */
    public CellResult run(RunConfig config) {
        return run(config, System.nanoTime());
    }

    /** Runs {@code config}; {@code wallStartNanos} ({@link System#nanoTime()}) is when the caller started loading it. */
    public CellResult run(RunConfig config, long wallStartNanos) {
        return run(config, wallStartNanos, CellObserver.NONE);
    }

    /**
     * Runs {@code config} with {@code observer} watching its measured phase at every interval end (see
     * {@link CellObserver}); the result is the same as without it.
     */
    public CellResult run(RunConfig config, long wallStartNanos, CellObserver observer) {
        return targets.of(config, k -> null).run(config, wallStartNanos, observer);
    }
}
