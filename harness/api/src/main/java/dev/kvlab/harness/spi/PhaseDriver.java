package dev.kvlab.harness.spi;

/**
 * The framework's driver of one phase (warm-up or measured) as a target's {@link TargetCell#runPhase} sees it: it
 * releases the workload's requests to the target's {@link Server} at their intended times; the target runs its clock
 * until the driver is done (or failed) and nothing is in flight.
 */
public interface PhaseDriver {

    /** True once every request of the phase was released. */
    boolean done();

    /** Requests released so far. */
    long released();

    /** Why the phase failed, or null. */
    RuntimeException error();
}
