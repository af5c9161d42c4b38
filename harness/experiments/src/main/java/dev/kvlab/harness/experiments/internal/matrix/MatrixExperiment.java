package dev.kvlab.harness.experiments.internal.matrix;

import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.api.Experiment;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.experiments.internal.capacity.CapacitySearch;

/** What a matrix runs, and in which order: its fixed cells × replicates, or with a {@code capacity:} block, a capacity search. */
public final class MatrixExperiment {

    private MatrixExperiment() {}

    /**
     * A {@link FixedMatrix} (every run of {@link MatrixSpec#runs()}) or, with a {@code capacity:} block, a
     * {@link CapacitySearch}. An experiment block of another kind must be chosen here: it is never run as a fixed matrix.
     */
    public static Experiment of(MatrixSpec spec) {
        return switch (spec.experiment()) {
            case null -> new FixedMatrix(spec);
            case CapacitySpec c -> new CapacitySearch(spec);
            default ->
                throw new IllegalArgumentException(
                        "no experiment runs a matrix's " + spec.experiment().key() + ": block (MatrixExperiment.of)");
        };
    }
}
