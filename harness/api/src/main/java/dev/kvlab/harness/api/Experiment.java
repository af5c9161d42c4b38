package dev.kvlab.harness.api;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * What runs next, given what has run: the seam between a fixed matrix (every cell × replicate, known up front)
 * and an adaptive experiment such as a capacity search (the next probe's load depends on the last probe's SLO
 * attainment), in the manner of GuideLLM's profiles ({@code next_strategy}). {@code MatrixExperiment.of(spec)} gives
 * the one a matrix asks for.
 *
 * <p>The runner calls {@link #step} with the runs the bundle holds, runs every run of {@link Step#next()} (they do
 * not depend on each other, so sim runs may run in parallel), records each, and asks again until {@code next} is
 * empty. A step must be a pure function of the recorded runs' files: a resumed run, or one run with other
 * parallelism, retraces the same runs and reaches the same decisions.
 */
public interface Experiment {

    /** The runs recorded so far and those to start now. */
    Step step(RunRecords recorded);

    /**
     * Work the experiment does once its bundle exists and before its first run, writing what it must write before any
     * run into {@code bundleDir} (e.g. a capacity search's predictions, {@code twins/}); on {@code --resume} it finds what
     * it wrote there. Nothing by default.
     */
    default void prepare(java.nio.file.Path bundleDir, java.io.PrintWriter log) throws java.io.IOException {}

    /** An upper bound on the runs this experiment makes (for progress). */
    int maxRuns();

    /**
     * Files the finished experiment adds to the bundle beside the summaries, file name → bytes (e.g.
     * {@code capacity.json}); written before the report is rendered. None by default.
     */
    default Map<String, byte[]> results(RunRecords recorded, String runId) throws IOException {
        return Map.of();
    }

    /**
     * The labels ({@code <cell>/r<k>}) of the finished experiment's runs whose every request record the bundle keeps when
     * it keeps only those that matter ({@code bundle.requests: capacity}), or null for all of them (the default: a fixed
     * matrix keeps every run's requests).
     */
    default java.util.Set<String> requestsKept(RunRecords recorded) {
        return null;
    }

    /**
     * @param done the recorded runs that belong to the experiment, in the bundle's order: grouped by cell id, replicates
     *             ascending within a cell (summary.csv's rows and manifest.json's cells follow it)
     * @param next the runs to start now, none depending on another's result; empty when the experiment is complete
     */
    record Step(List<CellRun> done, List<CellRun> next) {
        public Step {
            done = List.copyOf(done);
            next = List.copyOf(next);
        }

        public boolean finished() {
            return next.isEmpty();
        }
    }
}
