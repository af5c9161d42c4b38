package dev.kvlab.store.api.master;

/** Outcome of {@link Master#putEnd} and {@link Master#putRevoke}. */
public enum EndStatus {
    OK,
    /** No PROCESSING put of that key with that id: it was revoked, taken over, reclaimed, or lost its segments. */
    NOT_FOUND
}
