package dev.kvlab.store.api;

/** Outcome of a remove. */
public enum RemoveStatus {
    REMOVED,
    NOT_FOUND,
    /** An active lease (a reader) protects the object; try again after it expires. */
    LEASED,
    /** The object is still being written. */
    IN_PROGRESS
}
