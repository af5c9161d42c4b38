package dev.kvlab.harness.api;

/**
 * A matrix's experiment block, validated ({@code capacity:}, ...): what makes a matrix more than its fixed cells ×
 * replicates. {@code MatrixExperiment.of} chooses the {@link Experiment} by its type; the {@link MatrixSpec} holds it
 * whatever its kind, so a new kind adds a record and leaves the spec alone.
 */
public interface ExperimentSpec {

    /** The block's key in a matrix file ({@code capacity}). */
    String key();

    /**
     * True when the experiment picks its next runs from earlier runs' results (a capacity search): its run count is
     * an upper bound, and N hosts cannot each send a share of one run's requests ({@code --split requests}).
     */
    boolean adaptive();
}
