package dev.kvlab.store.internal.server;

import dev.kvlab.store.api.KeyRules;
import dev.kvlab.store.api.MasterStats;
import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.MountStatus;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.rpc.MasterChannel;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToDoubleFunction;

/**
 * The master as a service: {@link StoreMaster} behind tenant confinement ({@code tenant/key}), key
 * validation, bounded batches and per-RPC counters, plus a housekeeping thread that calls
 * {@link StoreMaster#tick()}. In-process clients call it directly (it is a {@link MasterChannel}); the gRPC
 * server delegates to it. Metrics go to the {@link MeterRegistry} given.
 */
public final class MasterService implements MasterChannel {

    /** Most keys one batch call may carry ({@link StoreMaster#MAX_BATCH}). */
    public static final int MAX_BATCH = StoreMaster.MAX_BATCH;

    /** Decides whether this master serves calls now (a replicated master serves only while it leads). */
    @FunctionalInterface
    public interface Gate {
        /** Throws {@link dev.kvlab.store.internal.rpc.NotLeaderException} when calls must not be served now. */
        void check();

        Gate OPEN = () -> {};
    }

    private volatile StoreMaster master;
    private volatile Gate gate = Gate.OPEN;
    private volatile java.util.function.Supplier<dev.kvlab.store.api.server.MasterStatus> status;
    private final Counter ping,
            mount,
            unmount,
            putStart,
            putEnd,
            putRevoke,
            getReplicaList,
            exists,
            remove,
            reportCorrupt,
            rejected;
    private volatile MasterStats cached;
    private volatile long cachedAt;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private volatile Thread housekeeper;

    public MasterService(StoreMaster master, MeterRegistry registry) {
        this.master = Objects.requireNonNull(master, "master");
        ping = rpc(registry, "ping");
        mount = rpc(registry, "mount");
        unmount = rpc(registry, "unmount");
        putStart = rpc(registry, "put_start");
        putEnd = rpc(registry, "put_end");
        putRevoke = rpc(registry, "put_revoke");
        getReplicaList = rpc(registry, "get_replica_list");
        exists = rpc(registry, "exists");
        remove = rpc(registry, "remove");
        reportCorrupt = rpc(registry, "report_corrupt");
        FunctionCounter.builder(
                        "kvlab.store.replicas.corrupt.dropped",
                        this,
                        s -> s.master().corruptReplicasDropped())
                .description(
                        "replicas dropped because a client found them failing verification (the next put repopulates the key)")
                .register(registry);
        rejected = Counter.builder("kvlab.store.rpc.rejected")
                .description("calls refused as bad input (key, tenant, batch size)")
                .register(registry);
        gauge(registry, "kvlab.store.objects", "complete objects", MasterStats::objects);
        gauge(registry, "kvlab.store.objects.processing", "puts in progress", MasterStats::processing);
        gauge(registry, "kvlab.store.bytes.used", "allocated bytes", MasterStats::bytesUsed);
        gauge(registry, "kvlab.store.capacity.bytes", "mounted capacity", MasterStats::capacityBytes);
        gauge(registry, "kvlab.store.segments", "mounted segments", MasterStats::segments);
        gauge(registry, "kvlab.store.leases.active", "objects under an active lease", MasterStats::activeLeases);
        counter(registry, "kvlab.store.leases.granted", "leases granted", MasterStats::leasesGranted);
        counter(registry, "kvlab.store.evictions", "objects evicted", MasterStats::evictedObjects);
        counter(registry, "kvlab.store.evicted.bytes", "bytes evicted", MasterStats::evictedBytes);
        counter(registry, "kvlab.store.eviction.runs", "eviction runs", MasterStats::evictionRuns);
        counter(
                registry,
                "kvlab.store.objects.dropped",
                "objects lost with their segments",
                MasterStats::droppedObjects);
    }

    private static Counter rpc(MeterRegistry r, String name) {
        return Counter.builder("kvlab.store.rpc")
                .tag("rpc", name)
                .description("control-plane calls")
                .register(r);
    }

    private void gauge(MeterRegistry r, String name, String desc, ToDoubleFunction<MasterStats> f) {
        Gauge.builder(name, this, s -> f.applyAsDouble(s.statsSnapshot()))
                .description(desc)
                .register(r);
    }

    private void counter(MeterRegistry r, String name, String desc, ToDoubleFunction<MasterStats> f) {
        FunctionCounter.builder(name, this, s -> f.applyAsDouble(s.statsSnapshot()))
                .description(desc)
                .register(r);
    }

    /**
     * Recent stats without walking the objects on the caller's thread (stats() walks every shard under its lock, and
     * callers include a live cell's event loop and metric scrapes): the first call computes them; after that a copy
     * older than 500 ms is returned while one refresh runs on a virtual thread.
     */
    public MasterStats statsSnapshot() {
        MasterStats s = cached;
        if (s == null) return refreshStats();
        if (System.nanoTime() - cachedAt > 500_000_000L && refreshing.compareAndSet(false, true)) {
            Thread.ofVirtual().name("kvlab-master-stats").start(() -> {
                try {
                    refreshStats();
                } finally {
                    refreshing.set(false);
                }
            });
        }
        return s;
    }

    /** The stats computed now (walks every shard: for a before/after comparison, not a frequent caller). */
    public MasterStats statsNow() {
        return refreshStats();
    }

    private MasterStats refreshStats() {
        MasterStats s = master.stats();
        cachedAt = System.nanoTime();
        cached = s;
        return s;
    }

    /** Calls served so far by operation (the {@code rpc} tag of {@code kvlab.store.rpc}). */
    public Map<String, Long> callCounts() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Counter c : List.of(ping, mount, unmount, putStart, putEnd, putRevoke, getReplicaList, exists, remove))
            m.put(c.getId().getTag("rpc"), (long) c.count());
        return m;
    }

    public StoreMaster master() {
        return master;
    }

    /**
     * Serves {@code m} from now on (a replicated master's new term: the master a standby rebuilt from the oplog, or an
     * empty one after losing the leadership); the stats cache starts afresh.
     */
    public void replaceMaster(StoreMaster m) {
        master = Objects.requireNonNull(m, "master");
        cached = null;
    }

    /** From now on every call first passes {@code g} (a replicated master's leadership check). */
    public void gate(Gate g) {
        gate = Objects.requireNonNull(g, "gate");
    }

    /** From now on {@link #status()} is {@code s}'s (a replicated master's role, term and leader). */
    public void statusSource(java.util.function.Supplier<dev.kvlab.store.api.server.MasterStatus> s) {
        status = s;
    }

    @Override
    public dev.kvlab.store.api.server.MasterStatus status() {
        var s = status;
        if (s != null) return s.get();
        MasterStats st = statsSnapshot();
        return new dev.kvlab.store.api.server.MasterStatus("single", "", 0, "", "", 0, st.objects(), st.segments());
    }

    /** Starts a daemon thread calling {@link StoreMaster#tick()} every {@code every}. */
    public synchronized MasterService startHousekeeping(Duration every) {
        if (housekeeper != null) return this;
        long ms = Math.max(1, every.toMillis());
        housekeeper = Thread.ofPlatform()
                .daemon()
                .name("kvlab-master-housekeeping")
                .start(() -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        try {
                            Thread.sleep(ms);
                            master().tick();
                        } catch (InterruptedException e) {
                            return;
                        } catch (RuntimeException e) {
                            System.err.println("kvlab master: housekeeping failed: " + e);
                        }
                    }
                });
        return this;
    }

    @Override
    public synchronized void close() {
        if (housekeeper != null) {
            housekeeper.interrupt();
            housekeeper = null;
        }
    }

    // ---------------------------------------------------------------- MasterChannel

    @Override
    public boolean ping(String clientId) {
        gate.check();
        ping.increment();
        return master.ping(checkId(clientId));
    }

    @Override
    public MountStatus mount(String clientId, String segment, long size, String endpoint) {
        gate.check();
        mount.increment();
        return master.mountSegment(checkId(clientId), checkId(segment), size, endpoint);
    }

    @Override
    public boolean unmount(String clientId, String segment) {
        gate.check();
        unmount.increment();
        checkId(clientId);
        boolean owned = master.segments().stream()
                .anyMatch(s -> s.name().equals(segment) && s.clientId().equals(clientId));
        return owned && master.unmountSegment(segment);
    }

    @Override
    public List<PutStartResult> putStart(
            String tenant, List<String> keys, long[] lengths, int[] crcs, ReplicateConfig config) {
        gate.check();
        putStart.increment();
        checkBatch(keys, lengths.length, crcs.length);
        return master.batchPutStart(qualify(tenant, keys), lengths, crcs, config);
    }

    @Override
    public List<EndStatus> putEnd(String tenant, List<String> keys, long[] putIds) {
        gate.check();
        putEnd.increment();
        checkBatch(keys, putIds.length, putIds.length);
        return master.batchPutEnd(qualify(tenant, keys), putIds);
    }

    @Override
    public List<EndStatus> putRevoke(String tenant, List<String> keys, long[] putIds) {
        gate.check();
        putRevoke.increment();
        checkBatch(keys, putIds.length, putIds.length);
        List<String> q = qualify(tenant, keys);
        List<EndStatus> out = new ArrayList<>(q.size());
        for (int i = 0; i < q.size(); i++) out.add(master.putRevoke(q.get(i), putIds[i]));
        return out;
    }

    @Override
    public ReplicaList getReplicaList(String tenant, String key) {
        gate.check();
        getReplicaList.increment();
        return master.getReplicaList(qualify(tenant, key));
    }

    @Override
    public List<ReplicaList> getReplicaLists(String tenant, List<String> keys) {
        gate.check();
        getReplicaList.increment();
        checkBatch(keys, keys.size(), keys.size());
        return master.batchGetReplicaList(qualify(tenant, keys));
    }

    @Override
    public boolean[] exists(String tenant, List<String> keys) {
        gate.check();
        exists.increment();
        checkBatch(keys, keys.size(), keys.size());
        return master.batchExists(qualify(tenant, keys));
    }

    @Override
    public RemoveStatus remove(String tenant, String key) {
        gate.check();
        remove.increment();
        return master.remove(qualify(tenant, key));
    }

    @Override
    public boolean reportCorrupt(String tenant, String key, String segment, long offset) {
        gate.check();
        reportCorrupt.increment();
        return master.dropCorruptReplica(qualify(tenant, key), segment, offset);
    }

    private String qualify(String tenant, String key) {
        try {
            return KeyRules.checkTenant(tenant) + "/" + KeyRules.checkKey(key);
        } catch (IllegalArgumentException e) {
            rejected.increment();
            throw e;
        }
    }

    private List<String> qualify(String tenant, List<String> keys) {
        List<String> out = new ArrayList<>(keys.size());
        for (String k : keys) out.add(qualify(tenant, k));
        return out;
    }

    private void checkBatch(List<String> keys, int a, int b) {
        if (keys.size() > MAX_BATCH || keys.size() != a || keys.size() != b) {
            rejected.increment();
            throw new IllegalArgumentException(
                    "batch of " + keys.size() + " keys (at most " + MAX_BATCH + ", one length/id per key)");
        }
    }

    private String checkId(String id) {
        if (id == null || id.isEmpty() || id.length() > 256) {
            rejected.increment();
            throw new IllegalArgumentException("client and segment ids must be 1..256 characters");
        }
        return id;
    }
}
