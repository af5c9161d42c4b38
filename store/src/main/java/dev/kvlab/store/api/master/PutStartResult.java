package dev.kvlab.store.api.master;

import java.util.List;

/**
 * Answer to {@link Master#putStart}: on {@link Status#STARTED}, the put's id and the replicas (on distinct
 * segments, possibly fewer than asked) the writer must fill before {@link Master#putEnd}.
 */
public record PutStartResult(Status status, long putId, List<Replica> replicas) {

    public enum Status {
        /** Space allocated, the object is PROCESSING (invisible to readers). */
        STARTED,
        /** A COMPLETE object with this key exists: a put of it is a no-op success. */
        EXISTS,
        /** Another writer's put of this key is PROCESSING and not yet abandoned. */
        IN_PROGRESS,
        /** No segment has room, even after eviction. */
        NO_SPACE
    }

    public PutStartResult {
        replicas = List.copyOf(replicas);
    }

    public static PutStartResult of(Status s) {
        return new PutStartResult(s, 0, List.of());
    }
}
