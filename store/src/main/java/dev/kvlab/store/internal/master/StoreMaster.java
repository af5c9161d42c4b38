package dev.kvlab.store.internal.master;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.MasterStats;
import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.Master;
import dev.kvlab.store.api.master.MountStatus;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.Replica;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.api.master.SegmentInfo;
import dev.kvlab.store.internal.master.ObjectMeta.Placed;
import dev.kvlab.store.internal.master.ObjectMeta.State;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The store master's metadata logic, in process: the real master server wraps this class, and the simulator
 * runs it under a virtual clock. It needs no threads, no sockets and no memory of the objects themselves:
 * segments are sizes, allocation is offset arithmetic ({@code OffsetAllocator}), and time is read only from
 * the {@link Clock} given. For the same {@link MasterConfig} (seed included) and the same sequence of calls
 * at the same clock readings it makes the same decisions, bit for bit.
 *
 * <p>What it guarantees (Mooncake Store's semantics, defaults in {@link MasterConfig#defaults()}):
 * <ul>
 * <li><b>Metadata</b> is sharded by key hash ({@code shards}, 1024). Lookups lock one shard only; calls that
 *     change space (puts, removes, mounts, eviction, {@link #tick()}) also take one space lock, a batch put once for
 *     all its keys.
 * <li><b>Placement</b>: {@link #putStart} allocates up to {@code replicaNum} replicas, each on a distinct
 *     mounted segment (preferred segments first, then the {@link dev.kvlab.store.api.AllocationStrategy}); fewer when there are
 *     not enough segments or room (best effort); {@code NO_SPACE} when none.
 * <li><b>Writes</b>: putStart → the object is PROCESSING (invisible); {@link #putEnd} → COMPLETE and
 *     visible; {@link #putRevoke} → freed, nothing was ever visible. A put of a COMPLETE key is
 *     {@code EXISTS} (no-op success); of a PROCESSING key, {@code IN_PROGRESS} unless that put started at
 *     least the discard timeout ago: then it is taken over, and its space stays reserved (its writer may still
 *     be writing) until the release timeout after its start. Abandoned puts nobody takes over are reclaimed
 *     after the release timeout as well. putEnd/putRevoke carry the put id, so a late writer cannot complete
 *     or revoke its successor's put.
 * <li><b>Reads</b>: {@link #getReplicaList} returns a COMPLETE object's replicas and grants a lease
 *     ({@code leaseTtl}) that blocks {@link #remove} and eviction until it expires. A read that finishes after
 *     the deadline it was given must be treated as {@code LEASE_EXPIRED} by the reader.
 * <li><b>Eviction</b> runs when usage passes the high watermark (after a putStart, or in {@link #tick()})
 *     or when an allocation fails, and frees at least {@code evictionRatio} of capacity (more if the failed
 *     allocation needs it): COMPLETE objects without an active lease, oldest lease first (approximate LRU),
 *     objects with an active soft pin only when the others are not enough, hard-pinned objects never. A
 *     watermark run that cannot reach its target (everything leased or pinned) is not repeated for 100 ms of
 *     clock time; an allocation failure always tries.
 * <li><b>Liveness</b>: {@link #ping} records a client; {@link #tick()} drops a client silent for longer than
 *     {@code clientTtl}, unmounting its segments and dropping their replicas (an object whose last replica
 *     goes is gone). A returning client gets {@code false} from ping and remounts.
 * </ul>
 *
 * <p>Keys are opaque here (tenant confinement and key validation belong to the server in front). Thread-safe, unless
 * made {@link #singleThreaded}.
 */
public final class StoreMaster implements Master {

    private static final class Shard {
        final Lock lock;
        final ObjectTable objects = new ObjectTable();

        Shard(Lock lock) {
            this.lock = lock;
        }
    }

    private record Discarded(long releaseAt, List<Placed> replicas) {}

    private final MasterConfig config;
    private final Clock clock;
    private final Random random;
    private final Shard[] shards;
    private final Lock space;
    private final TreeMap<String, SegmentState> segments = new TreeMap<>();
    private final TreeMap<String, Long> clients = new TreeMap<>();
    /** PROCESSING objects in put-id order (ids only grow), which reclaim walks in. */
    private final ProcessingPuts processing = new ProcessingPuts();
    /**
     * A lower bound of the start time of every PROCESSING object (exact after a reclaim walk): reclaim walks
     * {@link #processing} only when this says one may be abandoned, not on every put.
     */
    private long processingStartBound = Long.MAX_VALUE;
    /** The mounted segments in name order, rebuilt after a mount or unmount (placement reads it on every put). */
    private SegmentState[] segmentOrder;
    /** Placement scratch (space lock held). */
    private SegmentState[] scratch = new SegmentState[0];

    private final List<Discarded> discarded = new ArrayList<>();
    private final long leaseNanos, softPinNanos, discardNanos, releaseNanos, clientTtlNanos;
    private final AtomicLong leasesGranted = new AtomicLong();
    // guarded by space
    private long capacity, used, complete, nextPutId = 1;
    private long evictedObjects, evictedBytes, evictionRuns, takenOver, reclaimed, dropped, corruptDropped;
    /** After a watermark run that could not reach its target, the next watermark run waits until then (allocation failures do not). */
    private long watermarkQuietUntil = Long.MIN_VALUE;
    /** Told of every metadata change, under the space lock (a replicated master's oplog). */
    private volatile MasterJournal journal = MasterJournal.NONE;

    public StoreMaster(MasterConfig config, Clock clock) {
        this(config, clock, true);
    }

    /**
     * A master that only one thread ever calls (a simulator's loop): the same decisions as {@link #StoreMaster}, bit
     * for bit, without taking its locks (a sim replay makes a few hundred thousand calls). Not thread-safe.
     */
    public static StoreMaster singleThreaded(MasterConfig config, Clock clock) {
        return new StoreMaster(config, clock, false);
    }

    private StoreMaster(MasterConfig config, Clock clock, boolean locking) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.random = new Random(config.seed());
        this.space = locking ? new ReentrantLock() : new NoLock();
        this.shards = new Shard[config.shards()];
        for (int i = 0; i < shards.length; i++) shards[i] = new Shard(locking ? new ReentrantLock() : space);
        this.leaseNanos = config.leaseTtl().toNanos();
        this.softPinNanos = config.softPinTtl().toNanos();
        this.discardNanos = config.discardTimeout().toNanos();
        this.releaseNanos = config.releaseTimeout().toNanos();
        this.clientTtlNanos = config.clientTtl().toNanos();
    }

    public MasterConfig config() {
        return config;
    }

    /** From now on, tells {@code j} of every metadata change (in order, under the space lock). */
    public void journal(MasterJournal j) {
        space.lock();
        try {
            journal = Objects.requireNonNull(j, "journal");
        } finally {
            space.unlock();
        }
    }

    /** Put ids given from now on are at least {@code first} (a new leader's ids never meet an old leader's). */
    public void startPutIdsAt(long first) {
        space.lock();
        try {
            if (first > nextPutId) nextPutId = first;
        } finally {
            space.unlock();
        }
    }

    /** The master's clock reading in nanoseconds since the epoch (the unit of lease deadlines). */
    public long nowNanos() {
        Instant i = clock.instant();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    /** The shard index of {@code key}. */
    public int shardOf(String key) {
        int h = key.hashCode();
        h ^= (h >>> 16);
        h *= 0x85ebca6b;
        h ^= (h >>> 13);
        return Math.floorMod(h, shards.length);
    }

    // ---------------------------------------------------------------- segments and clients

    /** Mounts {@code segment} ({@code size} bytes) owned by {@code clientId}; {@code endpoint} is returned with its replicas. */
    public MountStatus mountSegment(String clientId, String segment, long size, String endpoint) {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(segment, "segment");
        if (size <= 0) throw new IllegalArgumentException("segment size must be > 0, got " + size);
        if (size > MAX_SEGMENT_BYTES)
            throw new IllegalArgumentException(
                    "segment size " + size + " exceeds " + MAX_SEGMENT_BYTES + " bytes (1 PiB)");
        long now = nowNanos();
        space.lock();
        try {
            clients.put(clientId, now);
            SegmentState s = segments.get(segment);
            if (s == null
                    && capacity
                            > Long.MAX_VALUE - size) // a hostile mount must not overflow the books (found by fuzzing)
            throw new IllegalArgumentException("mounting " + size + " more bytes would overflow the store's capacity");
            if (s != null) {
                return s.clientId.equals(clientId) && s.allocator.size() == size
                        ? MountStatus.ALREADY_MOUNTED
                        : MountStatus.CONFLICT;
            }
            segments.put(
                    segment,
                    new SegmentState(segment, clientId, endpoint == null ? "" : endpoint, size, config.alignment()));
            segmentOrder = null;
            capacity += size;
            journal.mounted(clientId, segment, size, endpoint == null ? "" : endpoint);
            return MountStatus.MOUNTED;
        } finally {
            space.unlock();
        }
    }

    /** Mounts a segment with an empty endpoint (simulation). */
    public MountStatus mountSegment(String clientId, String segment, long size) {
        return mountSegment(clientId, segment, size, "");
    }

    /** Unmounts {@code segment}, dropping every replica in it; false when it was not mounted. */
    public boolean unmountSegment(String segment) {
        space.lock();
        try {
            SegmentState s = segments.get(segment);
            if (s == null) return false;
            unmount(s);
            return true;
        } finally {
            space.unlock();
        }
    }

    /** Records that {@code clientId} is alive; false when the master did not know it (expired or restarted): it should remount. */
    public boolean ping(String clientId) {
        long now = nowNanos();
        space.lock();
        try {
            return clients.put(clientId, now) != null;
        } finally {
            space.unlock();
        }
    }

    /**
     * Housekeeping at the current clock reading: drops clients silent for longer than the TTL (with their
     * segments), reclaims the space of abandoned puts after the release timeout, and evicts when usage is above
     * the high watermark. The server calls it every few hundred milliseconds; a simulator whenever it likes.
     */
    public void tick() {
        long now = nowNanos();
        space.lock();
        try {
            List<String> silent = new ArrayList<>();
            for (Map.Entry<String, Long> c : clients.entrySet())
                if (now - c.getValue() > clientTtlNanos) silent.add(c.getKey());
            for (String c : silent) {
                clients.remove(c);
                List<SegmentState> owned = new ArrayList<>();
                for (SegmentState s : segments.values()) if (s.clientId.equals(c)) owned.add(s);
                for (SegmentState s : owned) unmount(s);
            }
            reclaim(now);
            if (aboveWatermark() && now >= watermarkQuietUntil) evictForWatermark(now);
        } finally {
            space.unlock();
        }
    }

    public List<SegmentInfo> segments() {
        space.lock();
        try {
            List<SegmentInfo> out = new ArrayList<>(segments.size());
            for (SegmentState s : segments.values())
                out.add(new SegmentInfo(s.name, s.clientId, s.endpoint, s.allocator.size(), s.allocator.usedBytes()));
            return out;
        } finally {
            space.unlock();
        }
    }

    // ---------------------------------------------------------------- writes

    /**
     * Starts a put of {@code length} bytes with checksum {@code crc32c}: allocates replicas (evicting if needed)
     * and records the object as PROCESSING.
     */
    public PutStartResult putStart(String key, long length, int crc32c, ReplicateConfig replicate) {
        checkPut(key, length, replicate);
        long now = nowNanos();
        space.lock();
        try {
            return putStartLocked(key, length, crc32c, replicate, now);
        } finally {
            space.unlock();
        }
    }

    /**
     * {@link #putStart} of each key in turn (at its own clock reading) under one hold of the space lock, so no other call
     * comes between them; every argument is checked before any key is started. The same decisions as the single
     * calls in that order.
     */
    public List<PutStartResult> batchPutStart(
            List<String> keys, long[] lengths, int[] crcs, ReplicateConfig replicate) {
        if (lengths.length != keys.size() || crcs.length != keys.size())
            throw new IllegalArgumentException(keys.size() + " keys need as many lengths and checksums, got "
                    + lengths.length + " and " + crcs.length);
        for (int i = 0; i < keys.size(); i++) checkPut(keys.get(i), lengths[i], replicate);
        List<PutStartResult> out = new ArrayList<>(keys.size());
        space.lock();
        try {
            for (int i = 0; i < keys.size(); i++)
                out.add(putStartLocked(keys.get(i), lengths[i], crcs[i], replicate, nowNanos()));
        } finally {
            space.unlock();
        }
        return out;
    }

    private static void checkPut(String key, long length, ReplicateConfig replicate) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(replicate, "replicate");
        if (length <= 0) throw new IllegalArgumentException("object length must be > 0, got " + length);
    }

    private PutStartResult putStartLocked(String key, long length, int crc32c, ReplicateConfig replicate, long now) {
        reclaim(now);
        Shard shard = shards[shardOf(key)];
        shard.lock.lock();
        try {
            ObjectMeta o = shard.objects.get(key);
            if (o != null) {
                if (o.state == State.COMPLETE) return PutStartResult.of(PutStartResult.Status.EXISTS);
                if (now - o.startedNanos < discardNanos) return PutStartResult.of(PutStartResult.Status.IN_PROGRESS);
                shard.objects.remove(key);
                processing.remove(o);
                discard(o.replicas, o.startedNanos + releaseNanos, now);
                takenOver++;
                journal.removed(key, o.putId);
            }
        } finally {
            shard.lock.unlock();
        }
        List<Placed> placed = place(length, replicate, now);
        if (placed.isEmpty()) return PutStartResult.of(PutStartResult.Status.NO_SPACE);
        ObjectMeta o =
                new ObjectMeta(key, nextPutId++, length, crc32c, replicate.softPin(), replicate.hardPin(), now, placed);
        shard.lock.lock();
        try {
            shard.objects.put(key, o);
        } finally {
            shard.lock.unlock();
        }
        processing.add(o);
        if (now < processingStartBound) processingStartBound = now;
        if (journal != MasterJournal.NONE) journal.started(record(o));
        List<Replica> out = replicasOf(o);
        if (aboveWatermark() && now >= watermarkQuietUntil) evictForWatermark(now);
        return new PutStartResult(PutStartResult.Status.STARTED, o.putId, out);
    }

    /** Completes put {@code putId} of {@code key}: the object becomes visible. */
    public EndStatus putEnd(String key, long putId) {
        long now = nowNanos();
        space.lock();
        try {
            return putEndLocked(key, putId, now);
        } finally {
            space.unlock();
        }
    }

    /** {@link #putEnd} of each key in turn (at its own clock reading) under one hold of the space lock. */
    public List<EndStatus> batchPutEnd(List<String> keys, long[] putIds) {
        if (putIds.length != keys.size())
            throw new IllegalArgumentException(keys.size() + " keys need as many put ids, got " + putIds.length);
        List<EndStatus> out = new ArrayList<>(keys.size());
        space.lock();
        try {
            for (int i = 0; i < keys.size(); i++) out.add(putEndLocked(keys.get(i), putIds[i], nowNanos()));
        } finally {
            space.unlock();
        }
        return out;
    }

    private EndStatus putEndLocked(String key, long putId, long now) {
        Shard shard = shards[shardOf(key)];
        shard.lock.lock();
        try {
            // a PROCESSING object is in its shard under its key exactly while it is in the queue of processing puts:
            // found there by put id (a search among the puts in flight) instead of by a probe of the shard's map
            ObjectMeta o = processing.find(putId);
            if (o == null || !o.key.equals(key)) return EndStatus.NOT_FOUND;
            o.state = State.COMPLETE;
            o.leaseDeadline = now;
            if (o.softPin) o.softPinDeadline = now + softPinNanos;
            processing.remove(o);
            complete++;
            journal.completed(key, putId, now);
            return EndStatus.OK;
        } finally {
            shard.lock.unlock();
        }
    }

    /** Revokes put {@code putId} of {@code key}: its space is freed and nothing of it was ever visible. */
    public EndStatus putRevoke(String key, long putId) {
        space.lock();
        try {
            Shard shard = shards[shardOf(key)];
            shard.lock.lock();
            try {
                ObjectMeta o = shard.objects.get(key);
                if (o == null || o.putId != putId || o.state != State.PROCESSING) return EndStatus.NOT_FOUND;
                shard.objects.remove(key);
                processing.remove(o);
                free(o.replicas);
                journal.removed(key, putId);
                return EndStatus.OK;
            } finally {
                shard.lock.unlock();
            }
        } finally {
            space.unlock();
        }
    }

    // ---------------------------------------------------------------- reads

    /** The replicas of a COMPLETE object, with a fresh lease (which also refreshes a soft pin). */
    public ReplicaList getReplicaList(String key) {
        long now = nowNanos();
        Shard shard = shards[shardOf(key)];
        shard.lock.lock();
        try {
            ObjectMeta o = shard.objects.get(key);
            if (o == null) return ReplicaList.NOT_FOUND;
            if (o.state != State.COMPLETE) return ReplicaList.IN_PROGRESS;
            long deadline = now + leaseNanos;
            if (deadline > o.leaseDeadline) o.leaseDeadline = deadline;
            if (o.softPin) o.softPinDeadline = Math.max(o.softPinDeadline, now + softPinNanos);
            leasesGranted.incrementAndGet();
            return new ReplicaList(
                    ReplicaList.Status.FOUND, o.length, o.crc32c, replicasOf(o), o.leaseDeadline, leaseNanos);
        } finally {
            shard.lock.unlock();
        }
    }

    public List<ReplicaList> batchGetReplicaList(List<String> keys) {
        List<ReplicaList> out = new ArrayList<>(keys.size());
        for (String k : keys) out.add(getReplicaList(k));
        return out;
    }

    /** True when {@code key} is COMPLETE (visible). Grants no lease. */
    public boolean exists(String key) {
        Shard shard = shards[shardOf(key)];
        shard.lock.lock();
        try {
            ObjectMeta o = shard.objects.get(key);
            return o != null && o.state == State.COMPLETE;
        } finally {
            shard.lock.unlock();
        }
    }

    public boolean[] batchExists(List<String> keys) {
        boolean[] out = new boolean[keys.size()];
        for (int i = 0; i < out.length; i++) out[i] = exists(keys.get(i));
        return out;
    }

    /** Removes a COMPLETE object unless a lease protects it. */
    public RemoveStatus remove(String key) {
        long now = nowNanos();
        space.lock();
        try {
            Shard shard = shards[shardOf(key)];
            shard.lock.lock();
            try {
                ObjectMeta o = shard.objects.get(key);
                if (o == null) return RemoveStatus.NOT_FOUND;
                if (o.state != State.COMPLETE) return RemoveStatus.IN_PROGRESS;
                if (o.leased(now)) return RemoveStatus.LEASED;
                shard.objects.remove(key);
                free(o.replicas);
                complete--;
                journal.removed(key, o.putId);
                return RemoveStatus.REMOVED;
            } finally {
                shard.lock.unlock();
            }
        } finally {
            space.unlock();
        }
    }

    /**
     * A client read the replica of {@code key} at ({@code segment}, {@code offset}) and its bytes failed verification
     * (checksum or content): the replica is dropped, so no later lookup returns it; its block is freed once the
     * object's lease has run out (readers holding it finish first). An object left without replicas is removed, so the
     * next put of the key repopulates it instead of finding it present. False when there was no such replica
     * (already dropped, or the object was replaced).
     */
    public boolean dropCorruptReplica(String key, String segment, long offset) {
        long now = nowNanos();
        space.lock();
        try {
            Shard shard = shards[shardOf(key)];
            shard.lock.lock();
            try {
                ObjectMeta o = shard.objects.get(key);
                if (o == null || o.state != State.COMPLETE) return false;
                Placed hit = null;
                for (Placed p : o.replicas)
                    if (p.segment().name.equals(segment) && p.block().offset() == offset) hit = p;
                if (hit == null) return false;
                o.replicas.remove(hit);
                discard(List.of(hit), o.leaseDeadline, now);
                corruptDropped++;
                journal.replicaDropped(key, o.putId, segment, offset);
                if (o.replicas.isEmpty()) {
                    shard.objects.remove(key);
                    complete--;
                }
                return true;
            } finally {
                shard.lock.unlock();
            }
        } finally {
            space.unlock();
        }
    }

    /** Replicas dropped because a client found them failing the checksum ({@link #dropCorruptReplica}). */
    public long corruptReplicasDropped() {
        space.lock();
        try {
            return corruptDropped;
        } finally {
            space.unlock();
        }
    }

    // ---------------------------------------------------------------- stats

    /** Counters and a count of active leases; walks every object (O(n)): call it per reporting interval, not per request. */
    public MasterStats stats() {
        long now = nowNanos();
        space.lock();
        try {
            long leases = 0;
            for (Shard s : shards) {
                s.lock.lock();
                try {
                    for (int i = 0, n = s.objects.slots(); i < n; i++) {
                        ObjectMeta o = s.objects.slot(i);
                        if (o != null && o.state == State.COMPLETE && o.leased(now)) leases++;
                    }
                } finally {
                    s.lock.unlock();
                }
            }
            return new MasterStats(
                    complete,
                    processing.size(),
                    used,
                    capacity,
                    segments.size(),
                    clients.size(),
                    leases,
                    leasesGranted.get(),
                    evictedObjects,
                    evictedBytes,
                    evictionRuns,
                    takenOver,
                    reclaimed,
                    dropped);
        } finally {
            space.unlock();
        }
    }

    // ---------------------------------------------------------------- replication (a leader's snapshot, a new leader's
    // start)

    /**
     * The metadata as plain records, a consistent cut: taken under the space lock (which every change holds, so it
     * is the state after the last change told to the {@link #journal}), walking every object (O(n)). {@code atCut}
     * runs under the same lock, after the copy (a journal marks the cut's place in its log there).
     */
    public MasterImage export(Runnable atCut) {
        space.lock();
        try {
            List<MasterImage.SegmentRecord> segs = new ArrayList<>(segments.size());
            for (SegmentState s : segments.values())
                segs.add(new MasterImage.SegmentRecord(s.name, s.clientId, s.endpoint, s.allocator.size()));
            List<MasterImage.ObjectRecord> objs = new ArrayList<>();
            for (Shard shard : shards) {
                shard.lock.lock();
                try {
                    for (int i = 0, n = shard.objects.slots(); i < n; i++) {
                        ObjectMeta o = shard.objects.slot(i);
                        if (o != null) objs.add(record(o));
                    }
                } finally {
                    shard.lock.unlock();
                }
            }
            if (atCut != null) atCut.run();
            return new MasterImage(segs, objs);
        } finally {
            space.unlock();
        }
    }

    private static MasterImage.ObjectRecord record(ObjectMeta o) {
        List<MasterImage.BlockRef> refs = new ArrayList<>(o.replicas.size());
        for (Placed p : o.replicas)
            refs.add(new MasterImage.BlockRef(p.segment().name, p.block().offset()));
        return new MasterImage.ObjectRecord(
                o.key,
                o.putId,
                o.length,
                o.crc32c,
                o.softPin,
                o.hardPin,
                o.startedNanos,
                o.state == State.COMPLETE,
                o.leaseDeadline,
                refs);
    }

    /**
     * A master holding {@code image} (a new leader's start from its standby view): its segments mounted with their
     * owners (alive as of now: a node that does not ping within the client TTL is dropped as usual), each object's
     * blocks allocated where the image says, COMPLETE objects visible with a lease until at least {@code leaseFloorNanos}
     * (readers that leased an object from the old leader may still be reading it: it is not evicted under them),
     * PROCESSING ones waiting for their writers' PutEnd. Put ids start at {@code firstPutId} (or above every id in the
     * image). An object whose block overlaps one placed before it, or lies in no segment of the image, is left out
     * (and counted in {@link MasterStats#droppedObjects()}).
     */
    public static StoreMaster restore(
            MasterConfig config, Clock clock, MasterImage image, long firstPutId, long leaseFloorNanos) {
        StoreMaster m = new StoreMaster(config, clock, true);
        m.space.lock();
        try {
            m.restoreLocked(image, firstPutId, leaseFloorNanos);
        } finally {
            m.space.unlock();
        }
        return m;
    }

    private void restoreLocked(MasterImage image, long firstPutId, long leaseFloor) {
        long now = nowNanos();
        Map<String, List<long[]>> wanted = new TreeMap<>(); // segment -> [offset, size, object index, replica index]
        List<MasterImage.ObjectRecord> objs = image.objects();
        for (int i = 0; i < objs.size(); i++) {
            List<MasterImage.BlockRef> r = objs.get(i).replicas();
            for (int j = 0; j < r.size(); j++)
                wanted.computeIfAbsent(r.get(j).segment(), k -> new ArrayList<>())
                        .add(new long[] {
                            r.get(j).offset(), footprint(objs.get(i).length()), i, j
                        });
        }
        Placed[][] placed = new Placed[objs.size()][];
        for (int i = 0; i < placed.length; i++)
            placed[i] = new Placed[objs.get(i).replicas().size()];
        boolean[] bad = new boolean[objs.size()];
        for (MasterImage.SegmentRecord sr : image.segments()) {
            SegmentState s = new SegmentState(sr.name(), sr.clientId(), sr.endpoint(), sr.size(), config.alignment());
            segments.put(sr.name(), s);
            capacity += sr.size();
            clients.put(sr.clientId(), now);
            List<long[]> ws = wanted.getOrDefault(sr.name(), List.of());
            ws.sort(Comparator.comparingLong(w -> w[0]));
            long[] offsets = new long[ws.size()], sizes = new long[ws.size()];
            for (int k = 0; k < ws.size(); k++) {
                offsets[k] = ws.get(k)[0];
                sizes[k] = ws.get(k)[1];
            }
            OffsetAllocator.Block[] blocks = s.allocator.reserve(offsets, sizes);
            for (int k = 0; k < ws.size(); k++) {
                long[] w = ws.get(k);
                if (blocks[k] == null) bad[(int) w[2]] = true;
                else placed[(int) w[2]][(int) w[3]] = new Placed(s, blocks[k]);
            }
        }
        List<ObjectMeta> inFlight = new ArrayList<>();
        for (int i = 0; i < objs.size(); i++) {
            MasterImage.ObjectRecord r = objs.get(i);
            List<Placed> ps = new ArrayList<>(placed[i].length);
            for (Placed p : placed[i]) if (p != null) ps.add(p);
            if (bad[i] || ps.size() != placed[i].length || ps.isEmpty()) {
                for (Placed p : ps) p.segment().allocator.free(p.block());
                dropped++;
                continue;
            }
            for (Placed p : ps) used += p.block().size();
            ObjectMeta o = new ObjectMeta(
                    r.key(), r.putId(), r.length(), r.crc32c(), r.softPin(), r.hardPin(), r.startedNanos(), ps);
            shards[shardOf(r.key())].objects.put(r.key(), o);
            if (r.putId() >= nextPutId) nextPutId = r.putId() + 1;
            if (r.complete()) {
                o.state = State.COMPLETE;
                o.leaseDeadline = Math.max(r.leaseDeadline(), leaseFloor);
                if (o.softPin) o.softPinDeadline = now + softPinNanos;
                complete++;
            } else {
                inFlight.add(o);
            }
        }
        inFlight.sort(Comparator.comparingLong(o -> o.putId));
        for (ObjectMeta o : inFlight) {
            processing.add(o);
            processingStartBound = Math.min(processingStartBound, o.startedNanos);
        }
        if (firstPutId > nextPutId) nextPutId = firstPutId;
        segmentOrder = null;
    }

    // ---------------------------------------------------------------- internals (space lock held)

    private boolean aboveWatermark() {
        return capacity > 0 && used > config.highWatermark() * capacity;
    }

    private List<Placed> place(long length, ReplicateConfig rc, long now) {
        List<Placed> got = new ArrayList<>(rc.replicaNum());
        tryPlace(length, rc, got);
        if (got.size() < rc.replicaNum() && couldFitElsewhere(length, got)) {
            long need = (rc.replicaNum() - got.size()) * footprint(length);
            evict(need, now);
            tryPlace(length, rc, got);
        }
        return got;
    }

    private long footprint(long length) {
        long a = config.alignment();
        return (Math.max(length, 1) + a - 1) & -a;
    }

    private boolean couldFitElsewhere(long length, List<Placed> got) {
        long fp = footprint(length);
        for (SegmentState s : segmentOrder()) if (s.allocator.size() >= fp && !usedIn(s, got)) return true;
        return false;
    }

    private SegmentState[] segmentOrder() {
        SegmentState[] o = segmentOrder;
        if (o == null) o = segmentOrder = segments.values().toArray(new SegmentState[0]);
        return o;
    }

    private static boolean usedIn(SegmentState s, List<Placed> got) {
        for (Placed p : got) if (p.segment() == s) return true;
        return false;
    }

    private void tryPlace(long length, ReplicateConfig rc, List<Placed> got) {
        if (got.size() >= rc.replicaNum()) return;
        SegmentState[] c = candidates(rc, got);
        int n = candidateCount;
        for (int i = 0; i < n; i++) {
            SegmentState s = c[i];
            OffsetAllocator.Block b = s.allocator.allocate(length);
            if (b == null) continue;
            used += b.size();
            got.add(new Placed(s, b));
            if (got.size() >= rc.replicaNum()) return;
        }
    }

    private int candidateCount;

    /**
     * The segments to try, in order, in {@link #scratch} ({@link #candidateCount} of them): the preferred ones
     * not used yet, then the others in the strategy's order (random: a Fisher-Yates shuffle drawing exactly what
     * {@code Collections.shuffle} draws; free ratio: most free first, then by name).
     */
    private SegmentState[] candidates(ReplicateConfig rc, List<Placed> got) {
        SegmentState[] all = segmentOrder();
        if (scratch.length < all.length + rc.preferredSegments().size())
            scratch = new SegmentState[all.length + rc.preferredSegments().size()];
        SegmentState[] out = scratch;
        int n = 0;
        Set<String> seen = rc.preferredSegments().isEmpty() ? Set.of() : new HashSet<>();
        for (String name : rc.preferredSegments()) {
            SegmentState s = segments.get(name);
            if (s != null && !usedIn(s, got) && seen.add(name)) out[n++] = s;
        }
        int from = n;
        for (SegmentState s : all) if (!seen.contains(s.name) && !usedIn(s, got)) out[n++] = s;
        switch (config.strategy()) {
            case RANDOM -> {
                for (int i = n - from; i > 1; i--) {
                    int j = random.nextInt(i);
                    SegmentState t = out[from + i - 1];
                    out[from + i - 1] = out[from + j];
                    out[from + j] = t;
                }
            }
            case FREE_RATIO_FIRST ->
                Arrays.sort(
                        out,
                        from,
                        n,
                        Comparator.comparingDouble(SegmentState::freeRatio)
                                .reversed()
                                .thenComparing(s -> s.name));
        }
        candidateCount = n;
        return out;
    }

    /** The replicas of {@code o} as an unmodifiable list (which the answers' records then keep without copying it). */
    private static List<Replica> replicasOf(ObjectMeta o) {
        List<Placed> ps = o.replicas;
        if (ps.size() == 1) return List.of(replica(ps.get(0), o.length));
        Replica[] out = new Replica[ps.size()];
        for (int i = 0; i < out.length; i++) out[i] = replica(ps.get(i), o.length);
        return List.of(out);
    }

    private static Replica replica(Placed p, long length) {
        return new Replica(p.segment().name, p.segment().endpoint, p.block().offset(), length);
    }

    private void free(List<Placed> replicas) {
        for (Placed p : replicas) {
            if (!p.segment().mounted) continue; // its allocator went with the segment
            used -= p.block().size();
            p.segment().allocator.free(p.block());
        }
    }

    private void discard(List<Placed> replicas, long releaseAt, long now) {
        if (releaseAt <= now) free(replicas);
        else discarded.add(new Discarded(releaseAt, List.copyOf(replicas)));
    }

    private void reclaim(long now) {
        if (!discarded.isEmpty()) reclaimDiscarded(now);
        reclaimAbandoned(now);
    }

    private void reclaimDiscarded(long now) {
        for (Iterator<Discarded> it = discarded.iterator(); it.hasNext(); ) {
            Discarded d = it.next();
            if (d.releaseAt() <= now) {
                free(d.replicas());
                it.remove();
            }
        }
    }

    private void reclaimAbandoned(long now) {
        // nothing can be abandoned while the earliest start of a PROCESSING object is within the release timeout
        if (processing.isEmpty() || now - processingStartBound < releaseNanos) return;
        List<ObjectMeta> abandoned = null;
        long bound = Long.MAX_VALUE;
        for (int i = 0, n = processing.span(); i < n; i++) {
            ObjectMeta o = processing.at(i);
            if (o == null) continue;
            if (now - o.startedNanos >= releaseNanos) {
                if (abandoned == null) abandoned = new ArrayList<>();
                abandoned.add(o);
            } else if (o.startedNanos < bound) {
                bound = o.startedNanos;
            }
        }
        processingStartBound = bound;
        if (abandoned == null) return;
        for (ObjectMeta o : abandoned) {
            Shard shard = shards[shardOf(o.key)];
            shard.lock.lock();
            try {
                shard.objects.remove(o.key, o);
            } finally {
                shard.lock.unlock();
            }
            processing.remove(o);
            free(o.replicas);
            reclaimed++;
            journal.removed(o.key, o.putId);
        }
    }

    private void unmount(SegmentState s) {
        journal.unmounted(s.name);
        segments.remove(s.name);
        segmentOrder = null;
        capacity -= s.allocator.size();
        used -= s.allocator.usedBytes();
        s.mounted = false;
        for (Shard shard : shards) {
            shard.lock.lock();
            try {
                for (ObjectMeta o : shard.objects.removeIf(
                        x -> x.replicas.removeIf(p -> p.segment() == s) && x.replicas.isEmpty())) {
                    dropped++;
                    if (o.state == State.COMPLETE) complete--;
                    else processing.remove(o);
                }
            } finally {
                shard.lock.unlock();
            }
        }
        for (Iterator<Discarded> it = discarded.iterator(); it.hasNext(); ) {
            Discarded d = it.next();
            if (d.replicas().stream().allMatch(p -> p.segment() == s)) it.remove();
        }
    }

    private void evictForWatermark(long now) {
        if (!evict(0, now)) watermarkQuietUntil = now + WATERMARK_BACKOFF_NANOS;
    }

    /** A watermark run that fell short (everything leased or pinned) is not retried for this long. */
    private static final long WATERMARK_BACKOFF_NANOS = 100_000_000L;

    /**
     * Evicts at least max(ratio × capacity, {@code need}, usage above the watermark) if that many bytes are
     * evictable; true when it reached that target.
     */
    private boolean evict(long need, long now) {
        evictionRuns++;
        long target = Math.max((long) Math.ceil(config.evictionRatio() * capacity), need);
        target = Math.max(target, used - (long) Math.floor(config.highWatermark() * capacity));
        List<ObjectMeta> plain = new ArrayList<>();
        List<ObjectMeta> pinned = new ArrayList<>();
        for (Shard shard : shards) {
            shard.lock.lock();
            try {
                for (int i = 0, n = shard.objects.slots(); i < n; i++) {
                    ObjectMeta o = shard.objects.slot(i);
                    if (o == null || o.state != State.COMPLETE || o.hardPin || o.leased(now)) continue;
                    (o.softPinned(now) ? pinned : plain).add(o);
                }
            } finally {
                shard.lock.unlock();
            }
        }
        // the same order as sorting all candidates, but only as many are taken (heap) as the target needs
        long freed = evictFrom(new PriorityQueue<>(plain.size() + 1, OLDEST_LEASE_FIRST), plain, 0, target, now);
        if (freed < target)
            freed = evictFrom(new PriorityQueue<>(pinned.size() + 1, OLDEST_LEASE_FIRST), pinned, freed, target, now);
        return freed >= target;
    }

    private static final Comparator<ObjectMeta> OLDEST_LEASE_FIRST = (a, b) -> {
        int c = Long.compare(a.leaseDeadline, b.leaseDeadline);
        return c != 0 ? c : a.key.compareTo(b.key);
    };

    private long evictFrom(
            PriorityQueue<ObjectMeta> candidates, List<ObjectMeta> all, long freed, long target, long now) {
        if (freed >= target) return freed;
        candidates.addAll(all);
        while (freed < target && !candidates.isEmpty()) {
            ObjectMeta o = candidates.poll();
            Shard shard = shards[shardOf(o.key)];
            shard.lock.lock();
            try {
                if (shard.objects.get(o.key) != o || o.leased(now)) continue; // a reader got a lease meanwhile
                shard.objects.remove(o.key);
                long fp = o.footprint();
                free(o.replicas);
                complete--;
                freed += fp;
                evictedObjects++;
                evictedBytes += fp;
                journal.removed(o.key, o.putId);
            } finally {
                shard.lock.unlock();
            }
        }
        return freed;
    }
}
