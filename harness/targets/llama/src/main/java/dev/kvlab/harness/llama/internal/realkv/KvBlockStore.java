package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.spi.AuditedStore;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.ReplicateConfig;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A real engine's KV blocks in kvlab's store (behind the live cells' independent audit): fetches a run of blocks and
 * keeps the longest verified prefix of it, writes blocks back. A block counts only when the store says hit and its
 * header says it is the block asked for, intact ({@link KvBlockObject#verify}); the first that fails ends the usable
 * run, and it and every later block the store held are recomputed, counted as fallbacks. Thread-safe (one call per
 * call per buffer set at a time).
 */
final class KvBlockStore {

    private final AuditedStore backend;
    private final KvNamespace ns;
    private final long payloadBytes;
    private final ReplicateConfig replicate;
    private final RealKvTotals totals;

    KvBlockStore(AuditedStore backend, KvNamespace ns, long payloadBytes, int replicas, RealKvTotals totals) {
        this.backend = backend;
        this.ns = ns;
        this.payloadBytes = payloadBytes;
        this.replicate = ReplicateConfig.replicas(replicas);
        this.totals = totals;
    }

    long objectBytes() {
        return KvBlockObject.objectBytes(payloadBytes);
    }

    long payloadBytes() {
        return payloadBytes;
    }

    /** The store key of the block whose chained key is {@code blockKey}. */
    String key(long blockKey) {
        return ns.key(blockKey);
    }

    MemorySegment allocate() {
        return backend.allocateBuffer(objectBytes());
    }

    /**
     * What a fetch gave.
     *
     * @param usable       blocks from the first asked for that verified (their payloads are in the buffers)
     * @param available    blocks the store held in a row from the first (hit or failed, before the first miss)
     * @param fallbacks    blocks the store held that are recomputed because an earlier or this block failed
     * @param bytes        bytes the store delivered
     * @param transferNanos the get's time
     * @param verifyNanos  the header checks' time
     */
    record Fetched(int usable, int available, int fallbacks, long bytes, long transferNanos, long verifyNanos) {
        static final Fetched NONE = new Fetched(0, 0, 0, 0, 0, 0);
    }

    /** Fetches blocks {@code keys[from, to)} into {@code bufs[0, to-from)}. */
    Fetched fetch(long[] keys, int from, int to, int blockTokens, MemorySegment[] bufs) {
        if (to <= from) return Fetched.NONE;
        List<String> ks = new ArrayList<>(to - from);
        List<MemorySegment> ds = new ArrayList<>(to - from);
        for (int b = from; b < to; b++) {
            ks.add(ns.key(keys[b]));
            ds.add(bufs[b - from]);
        }
        long t0 = System.nanoTime();
        List<GetResult> got = backend.batchGetInto(ks, ds);
        long t1 = System.nanoTime();
        int usable = 0, available = 0, fallbacks = 0;
        long bytes = 0;
        boolean failed = false;
        for (int i = 0; i < got.size(); i++) {
            GetResult g = got.get(i);
            if (!g.isHit()) {
                if (!g.status().isFault()) break; // a miss ends what the store holds
                available++;
                fallbacks++;
                failed = true;
                totals.rejected("store_" + g.status().name().toLowerCase(java.util.Locale.ROOT));
                continue;
            }
            available++;
            bytes += g.length();
            if (failed) {
                fallbacks++;
                continue;
            }
            String why = KvBlockObject.verify(ds.get(i), g.length(), keys[from + i], blockTokens, payloadBytes);
            if (why != null) {
                failed = true;
                fallbacks++;
                totals.rejected(why.startsWith("payload checksum") ? "block_checksum" : "block_header");
                continue;
            }
            usable++;
        }
        return new Fetched(usable, available, fallbacks, bytes, t1 - t0, System.nanoTime() - t1);
    }

    /** The audit's verdict on blocks {@code keys[from, from+n)} just used from {@code bufs}: counts wrong hits used. */
    void audit(long[] keys, int from, int n, MemorySegment[] bufs) {
        for (int i = 0; i < n; i++) {
            if (backend.check(ns.key(keys[from + i]), bufs[i], objectBytes()) == AuditedStore.Verdict.UNKNOWN)
                totals.unaudited();
        }
    }

    /**
     * A PD handover through the store, prefill side: puts the sealed objects {@code objs[i]} (each of its own length)
     * under {@code keys[0, n)}; null when the store took every one, else why not.
     */
    String putObjects(long[] keys, int n, MemorySegment[] objs) {
        List<String> ks = new ArrayList<>(n);
        List<MemorySegment> vs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ks.add(ns.key(keys[i]));
            vs.add(objs[i]);
        }
        List<PutStatus> st = backend.batchPut(ks, vs, replicate);
        for (PutStatus p : st) if (!p.isStored()) return "put " + p.name().toLowerCase(java.util.Locale.ROOT);
        return null;
    }

    /**
     * A PD handover through the store, decode side: gets {@code keys[0, n)} into {@code dsts}; each object's length,
     * or -1 when the store had no intact copy to give (a miss or a fault).
     */
    long[] getObjects(long[] keys, int n, MemorySegment[] dsts) {
        List<String> ks = new ArrayList<>(n);
        List<MemorySegment> ds = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ks.add(ns.key(keys[i]));
            ds.add(dsts[i]);
        }
        List<GetResult> got = backend.batchGetInto(ks, ds);
        long[] len = new long[n];
        for (int i = 0; i < n; i++) {
            GetResult g = got.get(i);
            len[i] = g.isHit() ? g.length() : -1;
        }
        return len;
    }

    /** The audit's verdict on handed-over objects {@code bufs[i][0, lengths[i])} just used: counts wrong hits used. */
    void auditObjects(long[] keys, int n, MemorySegment[] bufs, long[] lengths) {
        for (int i = 0; i < n; i++)
            if (backend.check(ns.key(keys[i]), bufs[i], lengths[i]) == AuditedStore.Verdict.UNKNOWN) totals.unaudited();
    }

    /** Removes handed-over objects {@code keys[0, n)} (they served their one get). */
    void removeObjects(long[] keys, int n) {
        for (int i = 0; i < n; i++) backend.remove(ns.key(keys[i]));
    }

    /** Which of blocks {@code keys[from, to)} the store holds already. */
    boolean[] exists(long[] keys, int from, int to) {
        List<String> ks = new ArrayList<>(to - from);
        for (int b = from; b < to; b++) ks.add(ns.key(keys[b]));
        return backend.batchExists(ks);
    }

    /**
     * Tests only, a writer's bug the checksum cannot see: each block of a write but the last is written with the payload
     * of the block after it (another position), re-sealed under its own key with a valid CRC32C. The audit, which
     * compares what is read with what was written, sees nothing either; only the restore check's logits can.
     */
    static volatile boolean misplaceForTest;

    /** Writes sealed objects {@code bufs[i]} under {@code keys[i]}; returns how many the store took. */
    int write(List<Long> keys, List<MemorySegment> bufs) {
        if (keys.isEmpty()) return 0;
        if (misplaceForTest)
            for (int i = 0; i + 1 < bufs.size(); i++) {
                MemorySegment.copy(
                        KvBlockObject.payload(bufs.get(i + 1), payloadBytes),
                        0,
                        KvBlockObject.payload(bufs.get(i), payloadBytes),
                        0,
                        payloadBytes);
                KvBlockObject.seal(bufs.get(i), keys.get(i), ns.blockTokens(), payloadBytes);
            }
        List<String> ks = new ArrayList<>(keys.size());
        for (long k : keys) ks.add(ns.key(k));
        List<PutStatus> st = backend.batchPut(ks, bufs, replicate);
        int ok = 0;
        for (PutStatus s : st) {
            if (s.isStored()) ok++;
            else totals.writeFailed(s.name().toLowerCase(java.util.Locale.ROOT));
        }
        return ok;
    }
}
