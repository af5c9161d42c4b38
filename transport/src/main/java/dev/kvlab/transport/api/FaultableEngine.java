package dev.kvlab.transport.api;

/**
 * A {@link TransferEngine} in front of a real one whose link can be broken on purpose
 * ({@code dev.kvlab.transport.Transports.withLinkFaults}): a {@link LinkFault} (added latency, lost batches) acts on
 * the batches submitted through it; segments, buffers and opening pass straight through. The fault can be switched at
 * any time, e.g. at a chosen point of a measured run; decisions are seeded (the n-th batch submitted gets the same
 * fate for the same seed and fault, whatever the thread).
 */
public interface FaultableEngine extends TransferEngine {

    /** Switches the fault for batches submitted from now on ({@link LinkFault#NONE} heals the link). */
    void inject(LinkFault f);

    /** The fault batches submitted now meet. */
    LinkFault fault();

    /** Batches that completed late because of a delay fault. */
    long delayedBatches();

    /** Batches lost by a loss fault (before or after their bytes moved). */
    long lostBatches();
}
