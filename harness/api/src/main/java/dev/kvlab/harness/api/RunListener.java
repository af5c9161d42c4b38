package dev.kvlab.harness.api;

import java.nio.file.Path;
import java.time.Instant;

/**
 * Observes a matrix run: the runner calls every registered listener, one call at a time and in this order,
 * {@link #runStarted} once, then {@link #cellStarted} / {@link #cellFinished} for each cell run it runs (a fixed
 * matrix's cell × replicates, or a capacity search's probes; runs finished by an earlier, interrupted run and kept by
 * {@code --resume} are not announced again), then {@link #runFinished} once, also when the run fails. When sim runs
 * execute in parallel ({@code --jobs}), the start and finish calls of different runs interleave (still one at a time). Listeners are passed to the runner's constructor (there is
 * no static registry). A listener that throws is reported on stderr once and the run goes on; a listener must not
 * block for long (push asynchronously). All methods default to doing nothing.
 */
public interface RunListener {

    /** The run is about to run its first cell; {@code start.matrix().cells()} lists every cell. */
    default void runStarted(RunStart start) {}

    /** {@code cell} (one cell × replicate of run {@code runId}) is about to run. */
    default void cellStarted(String runId, CellRun cell) {}

    /**
     * An observer to run {@code cell} with (e.g. to push live metrics every measurement interval), or null for
     * none. Called right after {@link #cellStarted}; observing never changes what a cell computes.
     */
    default CellObserver cellObserver(String runId, CellRun cell) {
        return null;
    }

    /** {@code cell} finished with {@code result} (its files are written to the bundle). */
    default void cellFinished(String runId, CellRun cell, CellResult result) {}

    /**
     * Top-level sections this listener adds to {@code manifest.json} (name → section, e.g. {@code observability} → the
     * push target and counts); asked once, just before the manifest is written. A section must not reuse a name of the
     * bundle format.
     */
    default java.util.Map<String, ManifestSection> manifestSections() {
        return java.util.Map.of();
    }

    /** The run ended: {@code end.ok()} with its bundle in place, or failed ({@code end.bundle()} is null then). */
    default void runFinished(RunEnd end) {}

    /**
     * @param runId         the bundle's run id ({@code <yyyyMMdd-HHmmss>-<name>-<hash6>})
     * @param matrix        the resolved matrix: factors, cells, replicates, baseline
     * @param startedAt     when the run (or, resumed, its first attempt) started
     * @param alreadyDone   cell × replicates kept from an interrupted run ({@code --resume}); 0 for a fresh run
     */
    record RunStart(String runId, MatrixSpec matrix, Instant startedAt, int alreadyDone) {}

    /**
     * @param runId   the run id
     * @param matrix  the resolved matrix
     * @param bundle  the finished bundle directory, or null when the run failed
     * @param endedAt when it ended
     * @param ok      whether the bundle was completed
     */
    record RunEnd(String runId, MatrixSpec matrix, Path bundle, Instant endedAt, boolean ok) {}
}
