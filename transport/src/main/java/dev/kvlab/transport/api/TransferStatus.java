package dev.kvlab.transport.api;

/** Outcome of one request of a {@link TransferBatch}. */
public enum TransferStatus {
    /** Submitted, not finished yet. */
    PENDING,
    /** Every byte moved. */
    OK,
    /** The target rejected the range (offset + length beyond its segment, or an unknown segment). */
    OUT_OF_BOUNDS,
    /** The request did not finish within the batch timeout. */
    TIMEOUT,
    /** The peer or connection failed while the request was in flight. */
    FAILED
}
