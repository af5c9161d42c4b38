package dev.kvlab.harness.api;

/**
 * Watches one cell while it runs, e.g. to push live metrics. Called on the cell's own thread (the sim loop) at
 * the end of every measurement interval of the run's clock, the last (partial) interval included. Implementations
 * must return quickly and must not keep the {@link CellProgress} (it is a view, valid only during the call).
 * Observing never changes what the cell computes: a sim cell gives the same result with or without an observer.
 */
@FunctionalInterface
public interface CellObserver {

    /** One measurement interval ended. */
    void intervalEnded(CellProgress progress);

    /** Observes nothing. */
    CellObserver NONE = p -> {};
}
