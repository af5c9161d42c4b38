package dev.kvlab.harness.spi;

import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.config.Fault;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;

/**
 * The run's store fault ({@code faults:}) as the framework carries it out for a target with a store tier
 * ({@link StorePlan#faults}): it starts the fault cell's store, strikes on the chosen measured arrival (its
 * trigger in front of the framework's measurement) and reports what happened as extras.
 */
public interface StoreFaults extends AutoCloseable {

    /** Starts the fault cell's store; the returned backend is its client (closing it stops the store). */
    KvBackend open(BackendOptions options);

    /** The measurement listener with the trigger in front; the fault strikes on the chosen of the {@code n} measured arrivals. */
    ServingListener measured(ServingListener measurement, long origin, long n);

    /** Whether the fault has struck and, at loop time {@code now}, not yet healed. */
    boolean active(long now);

    /** The fault's kind. */
    Fault kind();

    /** Of a {@code corrupt} fault: the share of blocks it corrupts. */
    double corruptFraction();

    /** What the fault did, as the cell's extras. */
    void extras(Figures extras);

    @Override
    void close();
}
