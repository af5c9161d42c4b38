package dev.kvlab.store.api.server;

/**
 * What a leader wrote to its oplog in its current term: entries appended, of which etcd holds {@code durableEntries},
 * in {@code batches} etcd transactions of {@code bytes} in all.
 */
public record OplogStats(long entries, long durableEntries, long batches, long bytes) {

    public static final OplogStats NONE = new OplogStats(0, 0, 0, 0);
}
