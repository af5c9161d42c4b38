package dev.kvlab.store.api.master;

/** Outcome of {@link Master#mountSegment}. */
public enum MountStatus {
    /** Mounted now. */
    MOUNTED,
    /** Already mounted by the same client with the same size: nothing changed. */
    ALREADY_MOUNTED,
    /** The name is mounted by another client or with another size. */
    CONFLICT
}
