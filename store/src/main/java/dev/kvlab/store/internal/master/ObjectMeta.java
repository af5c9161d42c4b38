package dev.kvlab.store.internal.master;

import java.util.List;

/** Metadata of one object in a shard: state, placement, lease, pins. Guarded by its shard's lock. */
final class ObjectMeta {

    public enum State {
        PROCESSING,
        COMPLETE
    }

    /** One replica: the segment it lives in and the block allocated there. */
    public record Placed(SegmentState segment, OffsetAllocator.Block block) {}

    public final String key;
    public final long putId;
    public final long length;
    public final int crc32c;
    public final boolean softPin;
    public final boolean hardPin;
    public final long startedNanos;
    /** Where it lives (mutable: replicas are dropped on unmount and when found corrupt). */
    public final List<Placed> replicas;

    public State state = State.PROCESSING;
    /** In the master's queue of PROCESSING puts ({@link ProcessingPuts}). */
    boolean processing;
    /** Lease end (master clock); starts at completion time, so a never-read object is "oldest" from its put. */
    public long leaseDeadline;

    public long softPinDeadline;

    /** An object whose put starts now; it keeps {@code replicas} (a mutable list) as its own. */
    public ObjectMeta(
            String key,
            long putId,
            long length,
            int crc32c,
            boolean softPin,
            boolean hardPin,
            long startedNanos,
            List<Placed> replicas) {
        this.key = key;
        this.replicas = replicas;
        this.putId = putId;
        this.length = length;
        this.crc32c = crc32c;
        this.softPin = softPin;
        this.hardPin = hardPin;
        this.startedNanos = startedNanos;
    }

    public boolean leased(long now) {
        return leaseDeadline > now;
    }

    public boolean softPinned(long now) {
        return softPin && softPinDeadline > now;
    }

    public long footprint() {
        long t = 0;
        for (Placed p : replicas) t += p.block().size();
        return t;
    }
}
