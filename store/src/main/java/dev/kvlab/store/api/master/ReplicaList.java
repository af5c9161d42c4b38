package dev.kvlab.store.api.master;

import java.util.List;

/**
 * Answer to {@link Master#getReplicaList}: for a COMPLETE object, its length, CRC32C, replicas and the
 * lease granted with them. A reader must finish (and verify) before {@code leaseDeadlineNanos} on the master's
 * clock; a read that ends later is {@code LEASE_EXPIRED}, never data.
 */
public record ReplicaList(
        Status status, long length, int crc32c, List<Replica> replicas, long leaseDeadlineNanos, long leaseTtlNanos) {

    public enum Status {
        FOUND,
        NOT_FOUND,
        IN_PROGRESS
    }

    public static final ReplicaList NOT_FOUND = new ReplicaList(Status.NOT_FOUND, 0, 0, List.of(), 0, 0);
    public static final ReplicaList IN_PROGRESS = new ReplicaList(Status.IN_PROGRESS, 0, 0, List.of(), 0, 0);

    public ReplicaList {
        replicas = List.copyOf(replicas);
    }

    public boolean found() {
        return status == Status.FOUND;
    }
}
