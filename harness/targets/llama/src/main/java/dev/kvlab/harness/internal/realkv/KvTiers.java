package dev.kvlab.harness.internal.realkv;

import dev.kvlab.harness.api.config.Policy;
import dev.kvlab.harness.internal.llama.KvStateCodec;
import dev.kvlab.harness.internal.llama.KvStateLayout;
import dev.kvlab.harness.internal.llama.LlamaContext;
import dev.kvlab.workloads.api.Request;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Where an instance's sequences get their prompt KV and where it goes after them: the local tier (blocks the context
 * keeps, {@link LocalPrefixCache}), the remote tier (kvlab's store; the policy decides whether to fetch), the sampled
 * restore check, and the write-back of computed blocks. Runs on the instance's engine thread, on its context.
 *
 * <p>A fetched run of blocks is assembled at its own positions (after the local prefix) and restored into the
 * instance's scratch sequence, whose cells are then shared with the request's sequence: the local prefix stays where
 * it is, and nothing but the fetched blocks is copied.
 */
final class KvTiers {

    private final LlamaContext ctx;
    private final KvStateLayout layout;
    private final Policy policy;
    private final KvBlockStore store;
    private final LocalPrefixCache local;
    private final RealKvTotals totals;
    private final int scratch, verifyEvery;
    private final double verifyTolerance;
    private double prefillNanosPerToken = Double.NaN, fetchNanosPerByte = Double.NaN;
    private long restoresSeen, evictionsSeen, unplacedSeen;

    /** {@code store} null: no remote tier; {@code local} null: no local tier; {@code scratch}: a sequence id no request uses. */
    KvTiers(LlamaContext ctx, KvStateLayout layout, Policy policy, KvBlockStore store, LocalPrefixCache local, RealKvTotals totals, int scratch,
            int verifyEvery, double verifyTolerance) {
        this.ctx = ctx;
        this.layout = layout;
        this.policy = policy;
        this.store = store;
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
     * Gives the fresh sequence {@code s} what the tiers hold of its prompt: the local tier's longest run of blocks,
     * then (the policy willing) the store's verified run after it, restored. Sets {@code s.next} to the first prompt
     * token left to prefill and returns where the prompt's KV came from.
     */
    EngineInstance.Prefix load(EngineSequence s) {
        Request r = s.request;
        int b = r.blockTokens(), n = r.inputTokens();
        long[] keys = r.blockKeys();
        int reusable = (n - 1) / b; // blocks that leave at least one prompt token to prefill
        int lent = local == null ? 0 : local.match(keys, reusable);
        if (lent > 0) {
            local.lend(keys, lent, s.seq);
            totals.localLentBlocks.add(lent);
            if (ctx.maxPos(s.seq) != lent * b - 1)
                throw new IllegalStateException("the local tier lent " + lent + " blocks but the sequence ends at position " + ctx.maxPos(s.seq));
        }
        s.localBlocks = lent;
        EngineInstance.Prefix p = new EngineInstance.Prefix(lent * b, 0, lent * b, 0, 0, 0);
        int start = lent * b;
        if (store != null && reusable > lent) {
            if (worthFetching(reusable - lent, b)) {
                long t0 = System.nanoTime();
                KvBlockStore.Fetched f = store.fetch(keys, lent, reusable, b, s.bufs);
                totals.transferNanos.add(f.transferNanos());
                totals.verifyNanos.add(f.verifyNanos());
                if (f.bytes() > 0) fetchNanosPerByte = (double) f.transferNanos() / f.bytes();
                int usable = f.usable(), fallbacks = f.fallbacks();
                if (usable > 0 && !restore(s, lent, usable, b)) {
                    // llama.cpp refused the assembled state: those blocks are recomputed, counted as fallbacks
                    fallbacks += usable;
                    usable = 0;
                }
                s.fetchedBlocks = usable;
                start = (lent + usable) * b;
                p = new EngineInstance.Prefix(lent * b, usable * b, (lent + f.available()) * b, f.bytes(), fallbacks, System.nanoTime() - t0);
            } else {
                totals.policyRecomputed.increment();
            }
        }
        s.next = start;
        return p;
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

    /** After {@code s} completed: audits the blocks it used from the store, writes back those it computed, maybe checks its restore. */
    void completed(EngineSequence s) {
        Request r = s.request;
        int b = r.blockTokens();
        if (s.fetchedBlocks > 0) store.audit(r.blockKeys(), s.localBlocks, s.fetchedBlocks, s.bufs);
        if (store != null) writeBack(s, s.localBlocks + s.fetchedBlocks);
        if (s.fetchedBlocks > 0 && verifyEvery > 0 && restoresSeen++ % verifyEvery == 0)
            checkRestore(r, s.tokens, (s.localBlocks + s.fetchedBlocks) * b, s.firstLogits);
    }

    /** The policy: fetch always, never, or (auto) when the last measured fetch rate beats the last measured prefill rate. */
    private boolean worthFetching(int blocks, int blockTokens) {
        return switch (policy) {
            case FETCH -> true;
            case RECOMPUTE -> false;
            case AUTO -> Double.isNaN(prefillNanosPerToken) || Double.isNaN(fetchNanosPerByte)
                    || blocks * store.objectBytes() * fetchNanosPerByte < (double) blocks * blockTokens * prefillNanosPerToken;
        };
    }

    /**
     * Restores fetched blocks {@code [lent, lent+fetched)} behind the sequence's lent prefix: assembled at their
     * positions, restored into the scratch sequence, shared with {@code s}. False (nothing restored, the reason counted)
     * when llama.cpp refuses the state.
     */
    private boolean restore(EngineSequence s, int lent, int fetched, int b) {
        try (Arena a = Arena.ofConfined()) {
            List<MemorySegment> blocks = new ArrayList<>(fetched);
            for (int i = 0; i < fetched; i++) blocks.add(KvBlockObject.payload(s.bufs[i], store.payloadBytes()));
            long t1 = System.nanoTime();
            MemorySegment state = KvStateCodec.assemble(layout, b, blocks, lent * b, a);
            totals.assembleNanos.add(System.nanoTime() - t1);
            totals.assembleBytes.add(state.byteSize());
            long t2 = System.nanoTime();
            try {
                ctx.restore(scratch, state);
            } catch (IllegalStateException e) {
                ctx.removeSeq(scratch, -1, -1);
                totals.rejected("restore_refused");
                return false;
            }
            ctx.copySeq(scratch, s.seq, -1, -1);
            ctx.removeSeq(scratch, -1, -1);
            totals.restoreNanos.add(System.nanoTime() - t2);
            totals.restores.increment();
            int tokens = (lent + fetched) * b;
            if (ctx.maxPos(s.seq) != tokens - 1)
                throw new IllegalStateException("after the restore the sequence ends at position " + ctx.maxPos(s.seq) + ", expected " + (tokens - 1));
            return true;
        }
    }

    /**
     * The sampled restore check: the same prompt recomputed on the scratch sequence in the restore's two batches (the
     * restored prefix, then the rest) must give the next token's logits the restore gave, within the tolerance. After
     * the request completed (its own figures are taken); a mismatch is kept for the cell to fail on.
     */
    private void checkRestore(Request r, int[] toks, int start, float[] restored) {
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
                totals.logitMismatch.compareAndSet(null, String.format(java.util.Locale.ROOT, "request %d: after restoring %d tokens the next "
                        + "token's logits differ from a recompute of the same tokens by %.5g (tolerance %.5g)", r.id(), start, d, verifyTolerance));
        } finally {
            ctx.removeSeq(scratch, -1, -1);
        }
    }

    /** Writes the full prompt blocks from {@code from} on that the store does not hold yet (this request computed them). */
    private void writeBack(EngineSequence s, int from) {
        Request r = s.request;
        int full = r.fullBlocks();
        if (from >= full) return;
        long[] keys = r.blockKeys();
        boolean[] have = store.exists(keys, from, full);
        List<Integer> todo = new ArrayList<>();
        for (int k = from; k < full; k++) {
            if (have[k - from]) totals.writeSkipped.increment();
            else todo.add(k);
        }
        if (todo.isEmpty()) return;
        int b = r.blockTokens();
        List<Long> ks = new ArrayList<>(todo.size());
        List<MemorySegment> objs = new ArrayList<>(todo.size());
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = ctx.state(s.seq, a);
            long t0 = System.nanoTime();
            KvStateCodec.Parsed parsed = KvStateCodec.parse(st);
            for (int i = 0; i < todo.size(); i++) {
                int k = todo.get(i);
                MemorySegment obj = s.bufs[i];
                KvStateCodec.copyBlock(parsed, st, b, k, KvBlockObject.payload(obj, store.payloadBytes()));
                KvBlockObject.seal(obj, keys[k], b, store.payloadBytes());
                ks.add(keys[k]);
                objs.add(obj);
            }
            totals.splitNanos.add(System.nanoTime() - t0);
            totals.splitBytes.add(todo.size() * store.payloadBytes());
        }
        int ok = store.write(ks, objs);
        totals.writtenBlocks.add(ok);
        totals.writtenBytes.add(ok * store.objectBytes());
    }
}
