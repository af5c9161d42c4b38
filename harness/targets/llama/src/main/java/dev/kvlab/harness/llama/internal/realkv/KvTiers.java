package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.api.config.Policy;
import dev.kvlab.harness.llama.internal.KvStateLayout;
import dev.kvlab.harness.llama.internal.LlamaContext;
import dev.kvlab.workloads.api.Request;
import java.lang.foreign.MemorySegment;

/**
 * Where an instance's sequences get their prompt KV and where it goes after them: the local tier (blocks the context
 * keeps, {@link LocalPrefixCache}), the remote tier (kvlab's store; the policy decides whether to fetch), the sampled
 * restore check, and the write-back of computed blocks. Its context work runs on the instance's engine thread; its
 * store I/O ({@link #fetch}, {@link #put}) on the instance's I/O threads, so that the engine steps other sequences
 * meanwhile: a load is {@link #lend} (engine), then, when the store is asked, {@link #fetch} and {@link #assemble}
 * (I/O) and {@link #restored} (engine: {@code llama_state_seq_set_data} alone); a write-back is {@link #completed} (engine: the blocks split out of the context) then
 * {@link #put} (I/O).
 *
 * <p>A fetched run of blocks is assembled at its own positions (after the local prefix) and restored into the
 * instance's scratch sequence, whose cells are then shared with the request's sequence: the local prefix stays where
 * it is, and nothing but the fetched blocks is copied ({@link RemotePrefix}).
 */
final class KvTiers {

    private final LlamaContext ctx;
    private final Policy policy;
    private final KvBlockStore store;
    private final RemotePrefix remote;
    private final LocalPrefixCache local;
    private final RealKvTotals totals;
    private final int scratch, verifyEvery;
    private final double verifyTolerance;
    private double prefillNanosPerToken = Double.NaN, fetchNanosPerByte = Double.NaN;
    private long restoresSeen, evictionsSeen, unplacedSeen;

    /** Blocks the local tier keeps now (0 without one). */
    int keptBlocks() {
        return local == null ? 0 : local.size();
    }

    /** {@code store} null: no remote tier; {@code local} null: no local tier; {@code scratch}: a sequence id no request uses; blocks of {@code blockTokens}. */
    KvTiers(
            LlamaContext ctx,
            KvStateLayout layout,
            Policy policy,
            KvBlockStore store,
            LocalPrefixCache local,
            RealKvTotals totals,
            int scratch,
            int blockTokens,
            int verifyEvery,
            double verifyTolerance) {
        this.ctx = ctx;
        this.policy = policy;
        this.store = store;
        this.remote = store == null ? null : new RemotePrefix(ctx, layout, store, totals, scratch, blockTokens);
        this.local = local;
        this.totals = totals;
        this.scratch = scratch;
        this.verifyEvery = verifyEvery;
        this.verifyTolerance = verifyTolerance;
    }

    /** The engine's last measured prefill time per token (for {@code auto}). */
    void prefillRate(double nanosPerToken) {
        prefillNanosPerToken = nanosPerToken;
    }

    /**
     * First step of a load (engine thread): lends the fresh sequence {@code s} the local tier's longest run of its
     * prompt's blocks and sets {@code s.next} after it. True when the store is to be asked for the blocks after that
     * run ({@code [s.localBlocks, s.fetchTo)}: the remote tier holds some, the policy willing); false when the prompt's
     * KV comes from the local tier alone ({@link #localOnly}).
     */
    boolean lend(EngineSequence s) {
        Request r = s.request;
        int b = r.blockTokens(), n = r.inputTokens();
        long[] keys = r.blockKeys();
        int reusable = (n - 1) / b; // blocks that leave at least one prompt token to prefill
        int lent = local == null ? 0 : local.match(keys, reusable);
        if (lent > 0) {
            local.lend(keys, lent, s.seq);
            totals.localLentBlocks.add(lent);
            if (ctx.maxPos(s.seq) != lent * b - 1)
                throw new IllegalStateException("the local tier lent " + lent
                        + " blocks but the sequence ends at position " + ctx.maxPos(s.seq));
        }
        s.localBlocks = lent;
        s.next = lent * b;
        s.fetchTo = 0;
        if (remote == null || reusable <= lent) return false;
        if (!worthFetching(reusable - lent, b)) {
            totals.policyRecomputed.increment();
            return false;
        }
        s.fetchTo = reusable;
        return true;
    }

    /** Where the prompt's KV came from when the store was not asked: the local prefix. */
    EngineInstance.Prefix localOnly(EngineSequence s) {
        int t = s.localBlocks * s.request.blockTokens();
        return new EngineInstance.Prefix(t, 0, t, 0, 0, 0);
    }

    /** Second step (any thread): blocks {@code keys[from, to)} fetched into {@code bufs} and verified. */
    KvBlockStore.Fetched fetch(long[] keys, int from, int to, MemorySegment[] bufs) {
        return remote.fetch(keys, from, to, bufs);
    }

    /**
     * Still the second step (any thread): the {@code fetched} verified blocks in {@code bufs} assembled into llama.cpp's
     * state of their positions behind {@code lent} blocks, in {@code into} ({@link #fetchStateBuffer}).
     */
    MemorySegment assemble(int lent, int fetched, MemorySegment[] bufs, MemorySegment into) {
        return remote.assemble(lent, fetched, remote.blockTokens(), bufs, into);
    }

    /** A buffer a fetch of up to {@code blocks} blocks is assembled in ({@link #assemble}). */
    MemorySegment fetchStateBuffer(int blocks) {
        return remote.newStateBuffer(blocks * remote.blockTokens());
    }

    /**
     * Third step (engine thread): the verified run of {@code f}, assembled in {@code state} ({@link #assemble}),
     * restored behind the lent prefix of {@code s}; sets {@code s.next} after it and returns where the prompt's KV
     * came from, its fetch timed from {@code fetchStart} ({@link System#nanoTime}, when the fetch was asked for) to the
     * end of the restore.
     */
    EngineInstance.Prefix restored(EngineSequence s, KvBlockStore.Fetched f, MemorySegment state, long fetchStart) {
        int b = s.request.blockTokens(), lent = s.localBlocks;
        if (f.bytes() > 0) fetchNanosPerByte = (double) f.transferNanos() / f.bytes();
        int usable = f.usable(), fallbacks = f.fallbacks();
        if (usable > 0 && !remote.restoreAssembled(s.seq, lent, usable * b, state)) {
            // llama.cpp refused the assembled state: those blocks are recomputed, counted as fallbacks
            fallbacks += usable;
            usable = 0;
        }
        s.fetchedBlocks = usable;
        s.next = (lent + usable) * b;
        return new EngineInstance.Prefix(
                lent * b, usable * b, (lent + f.available()) * b, f.bytes(), fallbacks, System.nanoTime() - fetchStart);
    }

    /** The local tier keeps the prompt's full blocks that {@code s} holds so far (prefilled, lent or restored). */
    void keep(EngineSequence s) {
        if (local == null) return;
        Request r = s.request;
        int full = Math.min(r.fullBlocks(), s.next / r.blockTokens());
        if (full == 0) return;
        int before = local.size();
        local.keep(r.blockKeys(), full, s.seq);
        long ev = local.evictions(), un = local.unplaced();
        totals.localEvictions.add(ev - evictionsSeen);
        totals.localUnplaced.add(un - unplacedSeen);
        totals.localKeptBlocks.add(local.size() - before + (ev - evictionsSeen));
        evictionsSeen = ev;
        unplacedSeen = un;
    }

    /**
     * Blocks of a completed request to write back: the sealed objects of blocks {@code [from, to)} of its prompt in
     * {@code bufs[0, to-from)}, split out of the context; the store side is {@link #put}.
     */
    record WriteBack(long[] keys, int from, int to, MemorySegment[] bufs) {}

    /**
     * After {@code s} completed (engine thread): audits the blocks it used from the store, maybe checks its restore,
     * and splits the full prompt blocks it computed into its buffers; the write-back to hand to {@link #put}, or null
     * when there is none.
     */
    WriteBack completed(EngineSequence s) {
        Request r = s.request;
        int b = r.blockTokens();
        if (s.fetchedBlocks > 0) store.audit(r.blockKeys(), s.localBlocks, s.fetchedBlocks, s.bufs);
        if (s.fetchedBlocks > 0 && verifyEvery > 0 && restoresSeen++ % verifyEvery == 0) {
            // checked later, off the measured path ({@link #checkPending}): a recompute here would stall every other
            // sequence's step
            if (pending.size() < MAX_PENDING_CHECKS)
                pending.add(new PendingCheck(r.id(), s.tokens, (s.localBlocks + s.fetchedBlocks) * b, s.firstLogits));
            else totals.logitChecksSkipped.increment();
        }
        int from = s.localBlocks + s.fetchedBlocks, full = r.fullBlocks();
        if (remote == null || from >= full) return null;
        remote.split(s.seq, r.blockKeys(), from, full, s.bufs);
        return new WriteBack(r.blockKeys(), from, full, s.bufs);
    }

    /** The store side of a write-back (any thread): the blocks the store does not hold yet are put. */
    void put(WriteBack w) {
        remote.put(w.keys(), w.from(), w.to(), w.bufs());
    }

    /** The local tier's bookkeeping and the sampling position, with the context's state: what {@link #restore} puts back. */
    record Snapshot(
            LocalPrefixCache.Snapshot local,
            long restoresSeen,
            double prefillNanosPerToken,
            double fetchNanosPerByte) {}

    Snapshot snapshot() {
        return new Snapshot(
                local == null ? null : local.snapshot(), restoresSeen, prefillNanosPerToken, fetchNanosPerByte);
    }

    void restore(Snapshot s) {
        if (local != null) local.restore(s.local());
        restoresSeen = s.restoresSeen();
        prefillNanosPerToken = s.prefillNanosPerToken();
        fetchNanosPerByte = s.fetchNanosPerByte();
    }

    /** Why the local tier may not hold every block it was given since it started (null: it does): it evicted or left some unplaced. */
    String stale() {
        if (local == null) return null;
        if (local.evictions() > 0) return "the local tier evicted " + local.evictions() + " blocks";
        if (local.unplaced() > 0) return "the local tier left " + local.unplaced() + " blocks unplaced";
        return null;
    }

    /** Releases what the tiers keep between requests (after the engine thread ended). */
    void close() {
        if (remote != null) remote.close();
    }

    /** The policy: fetch always, never, or (auto) when the last measured fetch rate beats the last measured prefill rate. */
    private boolean worthFetching(int blocks, int blockTokens) {
        return switch (policy) {
            case FETCH -> true;
            case RECOMPUTE -> false;
            case AUTO ->
                Double.isNaN(prefillNanosPerToken)
                        || Double.isNaN(fetchNanosPerByte)
                        || blocks * store.objectBytes() * fetchNanosPerByte
                                < (double) blocks * blockTokens * prefillNanosPerToken;
        };
    }

    /** Restores sampled for the check, waiting for {@link #checkPending} (engine thread only). */
    private final java.util.ArrayList<PendingCheck> pending = new java.util.ArrayList<>();

    /** The most sampled restores kept for the check between two {@link #checkPending}: more are counted as skipped. */
    static final int MAX_PENDING_CHECKS = 512;

    /** A sampled restore: the request's prompt, where its restored prefix ended, and the next token's logits it gave. */
    private record PendingCheck(long requestId, int[] tokens, int start, float[] restored) {}

    /**
     * Runs the sampled restore checks kept since the last call (engine thread, with no request in flight: after a
     * phase, so that the recompute delays no measured request).
     */
    void checkPending() {
        try {
            for (PendingCheck c : pending) checkRestore(c.requestId(), c.tokens(), c.start(), c.restored());
        } finally {
            pending.clear();
        }
    }

    /**
     * The sampled restore check: the same prompt recomputed on the scratch sequence in the restore's two batches (the
     * restored prefix, then the rest) must give the next token's logits the restore gave, within the tolerance. Run
     * after the phase ({@link #checkPending}); a mismatch is kept for the cell to fail on.
     */
    private void checkRestore(long requestId, int[] toks, int start, float[] restored) {
        long t0 = System.nanoTime();
        ctx.removeSeq(scratch, -1, -1);
        try {
            ctx.prefill(scratch, toks, 0, start, 0);
            float[] recomputed = ctx.prefill(scratch, toks, start, toks.length, start);
            double d = 0;
            for (int i = 0; i < restored.length; i++) d = Math.max(d, Math.abs(restored[i] - recomputed[i]));
            totals.logitChecks.increment();
            totals.logitCheckNanos.add(System.nanoTime() - t0);
            totals.logitMaxDiff.accumulate(d);
            if (!(d <= verifyTolerance))
                totals.logitMismatch.compareAndSet(
                        null,
                        String.format(
                                java.util.Locale.ROOT,
                                "request %d: after restoring %d tokens the next "
                                        + "token's logits differ from a recompute of the same tokens by %.5g (tolerance %.5g)",
                                requestId,
                                start,
                                d,
                                verifyTolerance));
        } finally {
            ctx.removeSeq(scratch, -1, -1);
        }
    }
}
