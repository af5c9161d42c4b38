package dev.kvlab.store.api.master;

/**
 * Where one copy of an object lives: a range of a mounted segment.
 *
 * @param segment  the segment's name (unique in the cluster)
 * @param endpoint what the segment's owner gave at mount (for the bundled store, the transport's segment handle URI)
 * @param offset   start of the object inside the segment
 * @param length   the object's length in bytes
 */
public record Replica(String segment, String endpoint, long offset, long length) {}
