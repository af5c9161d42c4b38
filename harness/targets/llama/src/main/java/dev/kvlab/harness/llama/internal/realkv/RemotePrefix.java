package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.llama.internal.KvStateCodec;
import dev.kvlab.harness.llama.internal.KvStateLayout;
import dev.kvlab.harness.llama.internal.LlamaContext;
import dev.kvlab.harness.spi.TargetFramework;
import dev.kvlab.store.api.KvBackend;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The remote tier's path for a run of one sequence's KV blocks, in two halves by thread: the store side (fetch and
 * verify, {@link #fetch}; put, {@link #put}) runs anywhere, the context side (assemble and restore, {@link #restore};
 * split, {@link #split}) on the thread that owns the context. The llama.cpp target's tiers take it; it is public so
 * that a benchmark drives the same code ({@link #open}, {@link #writeBack}, {@link #fetchAndRestore}).
 *
 * <p>A restore assembles the fetched blocks at their positions into a state buffer kept between restores (grown when
 * a longer run comes), restores it into the scratch sequence and shares those cells with the request's sequence.
 */
public final class RemotePrefix {

    private final LlamaContext ctx;
    private final KvStateLayout layout;
    private final KvBlockStore store;
    private final RealKvTotals totals;
    private final int scratch, blockTokens;
    /** The assembled state of the last restore; native, reused (context thread only). */
    private MemorySegment state;

    private Arena stateArena;

    RemotePrefix(
            LlamaContext ctx,
            KvStateLayout layout,
            KvBlockStore store,
            RealKvTotals totals,
            int scratch,
            int blockTokens) {
        this.ctx = ctx;
        this.layout = layout;
        this.store = store;
        this.totals = totals;
        this.scratch = scratch;
        this.blockTokens = blockTokens;
    }

    /**
     * The path on {@code backend} (behind the live cells' audit, as the target puts it) for a unified context whose
     * sequence {@code scratch} no request uses; blocks of {@code blockTokens} under the namespace of the model file
     * {@code modelSha256}. The context is cleared (its layout is probed on sequence 0).
     */
    public static RemotePrefix open(
            KvBackend backend, LlamaContext ctx, String modelSha256, int blockTokens, int scratch) {
        KvStateLayout layout = EngineInstance.probeLayout(ctx);
        KvNamespace ns = new KvNamespace(
                modelSha256, LlamaCell.dtype(layout.layers().getFirst().kType()), layout.vTrans(), blockTokens);
        RealKvTotals totals = new RealKvTotals();
        KvBlockStore store = new KvBlockStore(
                TargetFramework.get().audited(backend), ns, layout.bytesPerToken() * blockTokens, 1, totals);
        return new RemotePrefix(ctx, layout, store, totals, scratch, blockTokens);
    }

    /** Bytes of one block object (header and payload). */
    public long objectBytes() {
        return store.objectBytes();
    }

    /** The store key of the block whose chained key is {@code blockKey}. */
    public String storeKey(long blockKey) {
        return store.key(blockKey);
    }

    /** {@code n} transfer buffers of one block object each, from the store's registered memory. */
    public MemorySegment[] allocate(int n) {
        MemorySegment[] b = new MemorySegment[n];
        for (int i = 0; i < n; i++) b[i] = store.allocate();
        return b;
    }

    /** Context side, then store side: blocks {@code [0, n)} of {@code seq} split into {@code bufs} and put (those the store lacks); how many it took. */
    public int writeBack(int seq, long[] keys, int n, MemorySegment[] bufs) {
        split(seq, keys, 0, n, bufs);
        return put(keys, 0, n, bufs);
    }

    /**
     * Store side, then context side: blocks {@code keys[0, n)} fetched into {@code bufs}, verified, and the verified
     * run restored into the empty sequence {@code seq}; how many blocks were restored.
     */
    public int fetchAndRestore(long[] keys, int n, int seq, MemorySegment[] bufs) {
        KvBlockStore.Fetched f = fetch(keys, 0, n, bufs);
        return f.usable() > 0 && restore(seq, 0, f.usable(), bufs) ? f.usable() : 0;
    }

    /** Store side: blocks {@code keys[from, to)} into {@code bufs[0, to-from)}, verified ({@link KvBlockStore#fetch}). */
    KvBlockStore.Fetched fetch(long[] keys, int from, int to, MemorySegment[] bufs) {
        KvBlockStore.Fetched f = store.fetch(keys, from, to, blockTokens, bufs);
        totals.transferNanos.add(f.transferNanos());
        totals.verifyNanos.add(f.verifyNanos());
        return f;
    }

    /**
     * Context side: the verified blocks in {@code bufs[0, fetched)} restored behind the {@code lent} blocks {@code seq}
     * holds: assembled at their positions, restored into the scratch sequence, shared with {@code seq}. False (nothing
     * restored, the reason counted) when llama.cpp refuses the state.
     */
    boolean restore(int seq, int lent, int fetched, MemorySegment[] bufs) {
        return restore(seq, lent, fetched, blockTokens, bufs);
    }

    /**
     * {@link #restore(int, int, int, MemorySegment[])} of {@code fetched} verified objects whose last holds
     * {@code lastTokens} tokens (a whole prompt handed over, its shorter tail included, {@link #splitRun}).
     */
    boolean restore(int seq, int lent, int fetched, int lastTokens, MemorySegment[] bufs) {
        int runTokens = KvStateCodec.runTokens(fetched, blockTokens, lastTokens);
        MemorySegment st = assemble(lent, fetched, lastTokens, bufs, stateBuffer(layout.stateBytes(runTokens)));
        return restoreAssembled(seq, lent, runTokens, st);
    }

    /**
     * Any thread: the verified blocks in {@code bufs[0, fetched)} (the last of {@code lastTokens} tokens) assembled
     * into llama.cpp's state of their positions behind {@code lent} blocks, in {@code into} (at least
     * {@link #stateBytes} of them); returns the state's slice of {@code into}.
     */
    MemorySegment assemble(int lent, int fetched, int lastTokens, MemorySegment[] bufs, MemorySegment into) {
        List<MemorySegment> blocks = new ArrayList<>(fetched);
        for (int i = 0; i < fetched; i++)
            blocks.add(KvBlockObject.payload(
                    bufs[i], layout.bytesPerToken() * (i == fetched - 1 ? lastTokens : blockTokens)));
        long t1 = System.nanoTime();
        int runTokens = KvStateCodec.runTokens(fetched, blockTokens, lastTokens);
        MemorySegment st = into.asSlice(0, layout.stateBytes(runTokens));
        KvStateCodec.assemble(layout, blockTokens, blocks, lastTokens, lent * blockTokens, st);
        totals.assembleNanos.add(System.nanoTime() - t1);
        totals.assembleBytes.add(st.byteSize());
        return st;
    }

    /** Bytes of the state of {@code tokens} positions: what {@link #assemble} needs. */
    long stateBytes(int tokens) {
        return layout.stateBytes(tokens);
    }

    /**
     * A buffer of its own that a run of up to {@code tokens} positions is {@linkplain #assemble assembled} in, off the
     * engine thread (a sequence keeps it across requests; freed with the sequence).
     */
    MemorySegment newStateBuffer(int tokens) {
        return Arena.ofAuto().allocate(stateBytes(tokens), 64);
    }

    /**
     * Context side: state {@code st} of {@code runTokens} positions ({@link #assemble}) restored behind the {@code lent}
     * blocks {@code seq} holds. False (nothing restored, the reason counted) when llama.cpp refuses it.
     */
    boolean restoreAssembled(int seq, int lent, int runTokens, MemorySegment st) {
        long t2 = System.nanoTime();
        // nothing lent before the blocks: they are the sequence's whole KV, restored into it (a context of a stream per
        // sequence cannot share cells across streams); behind a lent prefix, restored on the scratch and shared
        // (unified)
        int into = lent == 0 ? seq : scratch;
        try {
            ctx.restore(into, st);
        } catch (IllegalStateException e) {
            ctx.removeSeq(into, -1, -1);
            totals.rejected("restore_refused");
            return false;
        }
        if (into == scratch) {
            ctx.copySeq(scratch, seq, -1, -1);
            ctx.removeSeq(scratch, -1, -1);
        }
        totals.restoreNanos.add(System.nanoTime() - t2);
        totals.restores.increment();
        int tokens = lent * blockTokens + runTokens;
        if (ctx.maxPos(seq) != tokens - 1)
            throw new IllegalStateException("after the restore the sequence ends at position " + ctx.maxPos(seq)
                    + ", expected " + (tokens - 1));
        return true;
    }

    /** A slice of {@code bytes} of the kept state buffer, grown (to the next MiB) when too small. */
    private MemorySegment stateBuffer(long bytes) {
        if (state == null || state.byteSize() < bytes) {
            if (stateArena != null) stateArena.close();
            stateArena = Arena.ofShared();
            state = stateArena.allocate((bytes + (1 << 20) - 1) & -(1L << 20), 64);
        }
        return state.asSlice(0, bytes);
    }

    /** Context side: blocks {@code [from, to)} of {@code seq}'s state copied into {@code bufs[0, to-from)} and sealed under their keys. */
    void split(int seq, long[] keys, int from, int to, MemorySegment[] bufs) {
        if (to <= from) return;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = ctx.state(seq, a);
            long t0 = System.nanoTime();
            KvStateCodec.Parsed parsed = KvStateCodec.parse(st);
            for (int k = from; k < to; k++) {
                MemorySegment obj = bufs[k - from];
                KvStateCodec.copyBlock(parsed, st, blockTokens, k, KvBlockObject.payload(obj, store.payloadBytes()));
                KvBlockObject.seal(obj, keys[k], blockTokens, store.payloadBytes());
            }
            totals.splitNanos.add(System.nanoTime() - t0);
            totals.splitBytes.add((to - from) * store.payloadBytes());
        }
    }

    /**
     * Context side: positions {@code [0, tokens)} of {@code seq}'s state (a whole prompt, its shorter tail included)
     * copied into {@code bufs[0, ceil(tokens / B))} and sealed under {@code keys[i]}, the last object of the tail's
     * tokens; returns the objects' bytes (headers included). What a PD handover sends ({@link PdHandover}).
     */
    long splitRun(int seq, long[] keys, int tokens, MemorySegment[] bufs) {
        int n = (tokens + blockTokens - 1) / blockTokens;
        long bytes = 0;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = ctx.state(seq, a);
            long t0 = System.nanoTime();
            KvStateCodec.Parsed parsed = KvStateCodec.parse(st);
            for (int k = 0; k < n; k++) {
                int tk = Math.min(blockTokens, tokens - k * blockTokens);
                long payload = layout.bytesPerToken() * tk;
                MemorySegment obj = bufs[k];
                KvStateCodec.copyTokens(parsed, st, k * blockTokens, tk, KvBlockObject.payload(obj, payload));
                KvBlockObject.seal(obj, keys[k], tk, payload);
                bytes += KvBlockObject.objectBytes(payload);
            }
            totals.splitNanos.add(System.nanoTime() - t0);
            totals.splitBytes.add(bytes);
        }
        return bytes;
    }

    /**
     * Context side: {@code seq}'s state written by llama.cpp straight into {@code dst} (a PD handover's staging buffer,
     * sent from there) and parsed; refused (exception) when it does not fit. Nothing is split, so the split totals
     * are left alone (a parse timed as a split would report an impossible split rate).
     */
    KvStateCodec.Parsed stateInto(int seq, MemorySegment dst) {
        long n = ctx.stateInto(seq, dst);
        if (n <= 0)
            throw new IllegalStateException("the sequence's state does not fit in " + dst.byteSize() + " bytes");
        return KvStateCodec.parse(dst.asSlice(0, n));
    }

    /** Bytes of the object of a block of {@code tokens} tokens (header and payload). */
    long objectBytes(int tokens) {
        return KvBlockObject.objectBytes(layout.bytesPerToken() * tokens);
    }

    int blockTokens() {
        return blockTokens;
    }

    /**
     * Store side: of the sealed objects of blocks {@code [from, to)} in {@code bufs[0, to-from)}, those the store
     * does not hold yet are put (the others counted as skipped); how many the store took.
     */
    int put(long[] keys, int from, int to, MemorySegment[] bufs) {
        if (to <= from) return 0;
        boolean[] have = store.exists(keys, from, to);
        List<Long> ks = new ArrayList<>(to - from);
        List<MemorySegment> objs = new ArrayList<>(to - from);
        for (int k = from; k < to; k++) {
            if (have[k - from]) {
                totals.writeSkipped.increment();
            } else {
                ks.add(keys[k]);
                objs.add(bufs[k - from]);
            }
        }
        int ok = store.write(ks, objs);
        totals.writtenBlocks.add(ok);
        totals.writtenBytes.add(ok * store.objectBytes());
        return ok;
    }

    /** Releases the kept state buffer (call when the context is closed). */
    void close() {
        if (stateArena != null) stateArena.close();
        stateArena = null;
        state = null;
    }
}
