package dev.kvlab.harness.internal.matrix;

import dev.kvlab.harness.api.Experiment;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.internal.capacity.CapacitySearch;

/** What a matrix runs, and in which order: its fixed cells × replicates, or with a {@code capacity:} block, a capacity search. */
public final class MatrixExperiment {

    private MatrixExperiment() {}

    /** A {@link FixedMatrix} (every run of {@link MatrixSpec#runs()}) or, with a {@code capacity:} block, a {@link CapacitySearch}. */
    public static Experiment of(MatrixSpec spec) {
        return spec.capacity() == null ? new FixedMatrix(spec) : new CapacitySearch(spec);
    }
}
