package dev.kvlab.store.api.master;

import java.util.ArrayList;
import java.util.List;

/** Metadata of one object in a shard: state, placement, lease, pins. Guarded by its shard's lock. */
final class ObjectMeta {

    public enum State { PROCESSING, COMPLETE }

    /** One replica: the segment it lives in and the block allocated there. */
    public record Placed(SegmentState segment, OffsetAllocator.Block block) {}

    public final String key;
    public final long putId;
    public final long length;
    public final int crc32c;
    public final boolean softPin;
    public final boolean hardPin;
    public final long startedNanos;
    public final List<Placed> replicas = new ArrayList<>(2);
    public State state = State.PROCESSING;
    /** Lease end (master clock); starts at completion time, so a never-read object is "oldest" from its put. */
    public long leaseDeadline;
    public long softPinDeadline;

    public ObjectMeta(String key, long putId, long length, int crc32c, boolean softPin, boolean hardPin, long startedNanos) {
        this.key = key;
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
