package dev.kvlab.store.api;

/** Outcome of a put. */
public enum PutStatus {
    /** The object is now complete and visible. */
    OK,
    /** A complete object with this key already existed: a no-op success. */
    EXISTS,
    /** Another writer is putting this key right now (PROCESSING, not yet abandoned). */
    IN_PROGRESS,
    /** No segment had room even after eviction. */
    NO_SPACE,
    /** The write failed and was revoked: nothing became visible. */
    FAILED;

    /** True when the object is complete and visible after the call. */
    public boolean isStored() {
        return this == OK || this == EXISTS;
    }
}
