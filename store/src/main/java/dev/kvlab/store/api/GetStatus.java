package dev.kvlab.store.api;

/**
 * Outcome of a get. Only {@link #HIT} delivers bytes; every other status is a miss to the caller, and the
 * non-{@link #MISS} ones are counted as fallbacks: a wrong hit must never be used.
 */
public enum GetStatus {
    /** Verified bytes were delivered. */
    HIT,
    /** The key has no complete replica (never written, evicted, removed, or its node is gone). */
    MISS,
    /** The lease granted with the replica list expired before the read finished; the bytes are discarded. */
    LEASE_EXPIRED,
    /** The bytes read do not match the object's CRC32C. */
    CHECKSUM_MISMATCH,
    /** The bytes match their checksum but not the content the key must hold (verify mode). */
    CONTENT_MISMATCH,
    /** The master or the data transfer did not answer in time. */
    TIMEOUT,
    /** Any other failure (connection lost, node died mid-read, namespace refused, …). */
    ERROR;

    /** True for failures that were not plain misses: the caller fell back to recompute because of a fault. */
    public boolean isFault() {
        return this != HIT && this != MISS;
    }
}
