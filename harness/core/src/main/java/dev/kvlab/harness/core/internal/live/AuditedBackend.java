package dev.kvlab.harness.core.internal.live;

import dev.kvlab.harness.spi.AuditedStore;
import dev.kvlab.store.api.ForwardingKvBackend;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.ReplicateConfig;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.CRC32C;

/**
 * The independent audit of a backend's hits, around the backend of every live cell: a decorator that remembers a
 * digest of every value written through it (length and {@link CRC32C} of the bytes handed to the put, taken before
 * the put, kept when that put stored them) and checks the hits it is shown against the digest of what was written
 * under that key. It shares no code with the store's verification (the store checks its own CRC32C, the live tier the
 * key-derived content), so it can catch what that verification lets through: a hit whose bytes differ from what was
 * written counts in {@link #wrongHits()}.
 *
 * <p>Reads pass through unchecked; the live tier asks {@link #check} for every hit it got, after it has handed the
 * fetch's outcome to the model (the audit is off the measured path): a {@link Verdict#MISMATCH} of a block the model
 * used is a wrong hit <em>used</em>, which is what a cell's {@code wrong_hits_used} counts. Keys written by someone
 * else (an external {@code kvlab://} cluster filled before the run) cannot be audited and are counted apart.
 */
public final class AuditedBackend extends ForwardingKvBackend implements AuditedStore {

    private final ConcurrentHashMap<String, long[]> written = new ConcurrentHashMap<>();
    private final LongAdder checked = new LongAdder(), wrong = new LongAdder();

    public AuditedBackend(KvBackend inner) {
        super(inner);
    }

    /** Hits checked against what was written. */
    @Override
    public long hitsChecked() {
        return checked.sum();
    }

    /** Hits whose bytes were not what was written under their key (must stay 0). */
    @Override
    public long wrongHits() {
        return wrong.sum();
    }

    /**
     * Whether {@code buf[0, length)}, a hit the backend returned under {@code key}, is what was written under it.
     * Counts in {@link #hitsChecked()} and, when it is not, {@link #wrongHits()}.
     */
    @Override
    public Verdict check(String key, MemorySegment buf, long length) {
        long[] w = written.get(key);
        if (w == null) return Verdict.UNKNOWN;
        checked.increment();
        boolean ok = w[0] == length && length <= buf.byteSize() && digest(buf, length) == w[1];
        if (!ok) wrong.increment();
        return ok ? Verdict.MATCH : Verdict.MISMATCH;
    }

    private static long digest(MemorySegment m, long length) {
        CRC32C c = new CRC32C();
        c.update(m.asSlice(0, length).asByteBuffer());
        return c.getValue();
    }

    private static long[] digest(MemorySegment value) {
        return new long[] {value.byteSize(), digest(value, value.byteSize())};
    }

    /**
     * The digest is kept only when this put's bytes became the key's object ({@link PutStatus#OK}): when another
     * writer's object was there already or is being written ({@code EXISTS}, {@code IN_PROGRESS}), that one is what
     * readers get, and two writers of one key need not write the same bytes (a real engine's KV of one block computed
     * in two batches differs in its last bits).
     */
    @Override
    public PutStatus put(String key, MemorySegment value, ReplicateConfig config) {
        long[] d = digest(value);
        PutStatus s = delegate().put(key, value, config);
        if (s == PutStatus.OK) written.put(key, d);
        return s;
    }

    @Override
    public List<PutStatus> batchPut(List<String> keys, List<MemorySegment> values, ReplicateConfig config) {
        int n = Math.min(keys.size(), values.size());
        long[][] d = new long[n][];
        for (int i = 0; i < n; i++) d[i] = digest(values.get(i));
        List<PutStatus> st = delegate().batchPut(keys, values, config);
        for (int i = 0; i < n && i < st.size(); i++) if (st.get(i) == PutStatus.OK) written.put(keys.get(i), d[i]);
        return st;
    }

    @Override
    public String copySemantics() {
        return delegate().copySemantics() + "; audited: every hit is compared with a digest of what was written";
    }
}
