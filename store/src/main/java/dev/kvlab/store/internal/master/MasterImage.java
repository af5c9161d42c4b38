package dev.kvlab.store.internal.master;

import java.util.List;

/**
 * A master's metadata as plain records: its segments and its objects (with where each replica's block starts), enough
 * to rebuild a master that makes the same placements from here on ({@link StoreMaster#restore}). A leader's snapshot is
 * one ({@link StoreMaster#export}); a standby builds one by applying the leader's oplog.
 *
 * @param segments the mounted segments
 * @param objects  the objects, COMPLETE and PROCESSING
 */
public record MasterImage(List<SegmentRecord> segments, List<ObjectRecord> objects) {

    public MasterImage {
        segments = List.copyOf(segments);
        objects = List.copyOf(objects);
    }

    /** A mounted segment. */
    public record SegmentRecord(String name, String clientId, String endpoint, long size) {}

    /** Where one replica's block starts in its segment (its size is the object's length rounded up to the alignment). */
    public record BlockRef(String segment, long offset) {}

    /**
     * One object.
     *
     * @param startedNanos  when its put started (master clock): PROCESSING puts are taken over and reclaimed from it
     * @param complete      visible (COMPLETE) or not (PROCESSING)
     * @param leaseDeadline its lease's end (master clock; its completion time until a reader leases it)
     */
    public record ObjectRecord(
            String key,
            long putId,
            long length,
            int crc32c,
            boolean softPin,
            boolean hardPin,
            long startedNanos,
            boolean complete,
            long leaseDeadline,
            List<BlockRef> replicas) {

        public ObjectRecord {
            replicas = List.copyOf(replicas);
        }

        public ObjectRecord completed(long atNanos) {
            return new ObjectRecord(
                    key, putId, length, crc32c, softPin, hardPin, startedNanos, true, atNanos, replicas);
        }

        public ObjectRecord withReplicas(List<BlockRef> r) {
            return new ObjectRecord(
                    key, putId, length, crc32c, softPin, hardPin, startedNanos, complete, leaseDeadline, r);
        }
    }
}
