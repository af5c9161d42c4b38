package dev.kvlab.store.api;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A key-value backend as the serving model and {@code kvlab bench store} see it: the bundled Mooncake-like
 * store, or a peer such as Redis, behind the same calls so that comparisons are fair (YCSB's {@code DB}).
 * Values live in caller-provided off-heap buffers. Implementations are thread-safe.
 *
 * <p>Guarantee: a get returns {@link GetStatus#HIT} only for bytes that passed the backend's checks (the
 * bundled store: CRC32C, and the key-derived content in verify mode); anything else is reported as a
 * non-hit and the destination buffer must not be used.
 */
public interface KvBackend extends AutoCloseable {

    /** What it is, e.g. {@code bundled/tcp}, {@code kvlab://10.0.0.1:7000}, {@code redis://127.0.0.1:6379}. */
    String name();

    /** One sentence on what a get and a put copy, for reports. */
    String copySemantics();

    /** An off-heap buffer suitable for {@link #getInto} and {@link #put} (registered with the transport where one is used). */
    MemorySegment allocateBuffer(long bytes);

    /** Stores {@code value} under {@code key}; a key that is already complete is left as it is ({@link PutStatus#EXISTS}). */
    PutStatus put(String key, MemorySegment value, ReplicateConfig config);

    /** Reads {@code key} into {@code dst} (which must be large enough); see {@link GetResult}. */
    GetResult getInto(String key, MemorySegment dst);

    List<PutStatus> batchPut(List<String> keys, List<MemorySegment> values, ReplicateConfig config);

    List<GetResult> batchGetInto(List<String> keys, List<MemorySegment> dsts);

    boolean exists(String key);

    /** One answer per key, in order. */
    boolean[] batchExists(List<String> keys);

    RemoveStatus remove(String key);

    /**
     * The store's own counters (objects, bytes used, evictions, leases) where this client can see them: the bundled
     * store, whose master runs in this JVM. Empty otherwise (Redis; an external {@code kvlab://} cluster, which
     * publishes them on its Prometheus endpoint). About half a second old; the call does not walk the store's objects,
     * so it may be made from an event loop once per reporting interval (not per request).
     */
    default Optional<MasterStats> storeStats() {
        return Optional.empty();
    }

    /**
     * The same counters read now, not half a second old (it walks the store's objects: for a before/after comparison
     * at a phase's edges, not an event loop's every interval). By default {@link #storeStats()}.
     */
    default Optional<MasterStats> storeStatsNow() {
        return storeStats();
    }

    /**
     * Control-plane calls the store has served so far by operation ({@code put_start}, {@code get_replica_list}, ...),
     * where visible as for {@link #storeStats()}; empty otherwise.
     */
    default Map<String, Long> storeCalls() {
        return Map.of();
    }

    @Override
    void close();
}
