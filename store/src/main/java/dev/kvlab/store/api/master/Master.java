package dev.kvlab.store.api.master;

import dev.kvlab.store.api.MasterStats;
import dev.kvlab.store.api.ReplicateConfig;
import java.util.List;

/**
 * The store master's metadata operations a simulator drives (issue 36: the master itself is store's internal; the
 * simulator reaches it through this). {@code dev.kvlab.store.Masters.singleThreaded(config, clock)} builds one: a plain
 * object on the given clock that starts no thread, opens no socket and holds no object bytes. Same seed + same calls
 * at the same clock readings = the same placements, evictions and stats.
 */
public interface Master {

    /** The largest segment one mount may contribute (1 PiB). */
    long MAX_SEGMENT_BYTES = 1L << 50;

    /** The most keys one batch call may carry. */
    int MAX_BATCH = 4096;

    /** The master's clock reading in nanoseconds since the epoch (the unit of lease deadlines). */
    long nowNanos();

    /** Mounts a segment of {@code size} bytes with an empty endpoint (simulation). */
    MountStatus mountSegment(String clientId, String segment, long size);

    /** Unmounts {@code segment}, dropping every replica in it; false when it was not mounted. */
    boolean unmountSegment(String segment);

    /** The mounted segments. */
    List<SegmentInfo> segments();

    /** Starts a put of {@code length} bytes with checksum {@code crc32c}: allocates replicas (evicting if needed). */
    PutStartResult putStart(String key, long length, int crc32c, ReplicateConfig replicate);

    /** Completes put {@code putId} of {@code key}: the object becomes visible. */
    EndStatus putEnd(String key, long putId);

    /** Revokes put {@code putId} of {@code key}: its space is freed and nothing of it was ever visible. */
    EndStatus putRevoke(String key, long putId);

    /** The replicas of a COMPLETE object, with a fresh lease. */
    ReplicaList getReplicaList(String key);

    /** True when {@code key} is COMPLETE (visible). Grants no lease. */
    boolean exists(String key);

    /** Counters and a count of active leases (walks every object). */
    MasterStats stats();
}
