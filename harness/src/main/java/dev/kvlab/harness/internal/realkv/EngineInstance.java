package dev.kvlab.harness.internal.realkv;

import dev.kvlab.harness.api.config.Policy;
import dev.kvlab.harness.api.config.Tiers;
import dev.kvlab.harness.internal.llama.KvStateCodec;
import dev.kvlab.harness.internal.llama.KvStateLayout;
import dev.kvlab.harness.internal.llama.LlamaBatch;
import dev.kvlab.harness.internal.llama.LlamaContext;
import dev.kvlab.workloads.api.Request;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One engine instance of a real-KV cell: a llama.cpp context and the worker thread that runs it, one request at a
 * time (sequence 0). For each request it reuses the prefix of blocks the context still holds from its last prompt
 * (local tier), fetches the continuation from the store (remote tier; the policy decides), assembles and restores the
 * sequence state, prefills only the rest, decodes greedily, and writes the blocks it computed back to the store.
 * What happens is reported through {@link Events} with the loop's clock; it measures nothing itself.
 */
final class EngineInstance implements AutoCloseable {

    /** What the worker reports of one request, each with the loop time it happened (called on the worker thread). */
    interface Events {
        void admitted(long now);

        void prefix(Prefix p, long now);

        void firstToken(long now);

        void token(long now);

        void completed(long now);

        void failed(String why, long now);

        /** The request's work is over, write-back included (after its completion or failure). */
        void idle();
    }

    /**
     * Where a request's prompt KV came from.
     *
     * @param localTokens     reused from the context's own prefix
     * @param remoteTokens    fetched from the store, verified and restored
     * @param availableTokens the local prefix plus what the store held in a row after it
     * @param fetchedBytes    bytes the store delivered
     * @param fallbacks       blocks the store held that were recomputed (failed verification, or after one that did)
     * @param fetchNanos      fetch, verification, assembly and restore
     */
    record Prefix(int localTokens, int remoteTokens, int availableTokens, long fetchedBytes, int fallbacks, long fetchNanos) {}

    private final LlamaContext ctx;
    /** The decode batch, made and freed on the worker (its memory belongs to that thread). */
    private LlamaBatch batch;
    private final KvStateLayout layout;
    private final int vocab;
    private final Tiers tiers;
    private final Policy policy;
    private final KvBlockStore store;
    private final RealKvTotals totals;
    private final LongSupplier clock;
    private final ExecutorService worker;
    private final MemorySegment[] bufs;
    private long[] held = new long[0];
    private double prefillNanosPerToken = Double.NaN, fetchNanosPerByte = Double.NaN;
    private final int verifyEvery;
    private final double verifyTolerance;
    private long restoresSeen;

    /**
     * {@code store} null: no remote tier. {@code maxBlocks}: the most blocks a prompt has. {@code verifyEvery}: every
     * how many restores one is checked against a recompute (0: none), failing beyond {@code verifyTolerance}.
     */
    EngineInstance(int index, LlamaContext ctx, KvStateLayout layout, Tiers tiers, Policy policy, KvBlockStore store, int maxBlocks,
                   RealKvTotals totals, LongSupplier clock, int verifyEvery, double verifyTolerance) {
        this.verifyEvery = verifyEvery;
        this.verifyTolerance = verifyTolerance;
        this.ctx = ctx;
        this.layout = layout;
        this.vocab = ctx.model().vocabSize();
        this.tiers = tiers;
        this.policy = policy;
        this.store = tiers.remote() ? store : null;
        this.totals = totals;
        this.clock = clock;
        this.bufs = new MemorySegment[this.store == null ? 0 : maxBlocks];
        for (int i = 0; i < bufs.length; i++) bufs[i] = store.allocate();
        this.worker = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon().name("kvlab-llama-" + index).unstarted(r));
    }

    /** The state layout this release writes for the context's sequence 0: one token prefilled, its state parsed, cleared. */
    static KvStateLayout probeLayout(LlamaContext ctx) {
        ctx.clear();
        ctx.prefill(0, new int[] {PromptTokens.FIRST}, 0, 1, 0);
        try (Arena a = Arena.ofConfined()) {
            return KvStateCodec.parse(ctx.state(0, a)).layout();
        } finally {
            ctx.clear();
        }
    }

    /** Queues {@code r} on the worker. */
    void submit(Request r, Events ev) {
        worker.execute(() -> serve(r, ev));
    }

    private void serve(Request r, Events ev) {
        boolean ended = false;
        try {
            ev.admitted(clock.getAsLong());
            int b = r.blockTokens(), n = r.inputTokens();
            int[] toks = PromptTokens.of(r, vocab);
            int reusable = (n - 1) / b; // blocks that leave at least one prompt token to prefill
            int local = tiers.local() ? common(held, r.blockKeys(), reusable) : 0;
            held = new long[0];
            if (local == 0) ctx.clear();
            else if (!ctx.removeSeq(0, local * b, -1)) throw new IllegalStateException("llama.cpp could not drop the tail of the kept prefix");
            Prefix p = new Prefix(local * b, 0, local * b, 0, 0, 0);
            int start = local * b;
            if (store != null && reusable > local) {
                if (worthFetching(reusable - local, b)) {
                    long t0 = System.nanoTime();
                    KvBlockStore.Fetched f = store.fetch(r.blockKeys(), local, reusable, b, bufs);
                    totals.transferNanos.add(f.transferNanos());
                    totals.verifyNanos.add(f.verifyNanos());
                    if (f.bytes() > 0) fetchNanosPerByte = (double) f.transferNanos() / f.bytes();
                    int usable = f.usable(), fallbacks = f.fallbacks(), kept = local;
                    if (usable > 0 && !restore(local, usable, b)) {
                        // llama.cpp refused the assembled state: everything is recomputed, the fetched blocks counted as fallbacks
                        fallbacks += usable;
                        usable = 0;
                        local = 0;
                    }
                    start = (local + usable) * b;
                    p = new Prefix(local * b, usable * b, (kept + f.available()) * b, f.bytes(), fallbacks, System.nanoTime() - t0);
                } else {
                    totals.policyRecomputed.increment();
                }
            }
            ev.prefix(p, clock.getAsLong());
            long t0 = System.nanoTime();
            float[] logits = ctx.prefill(0, toks, start, n, start);
            long took = System.nanoTime() - t0;
            totals.prefillTokens.add(n - start);
            totals.prefillNanos.add(took);
            if (n - start >= b) prefillNanosPerToken = (double) took / (n - start);
            int tok = LlamaContext.argmax(logits);
            ev.firstToken(clock.getAsLong());
            int out = Math.max(1, r.outputTokens());
            long d0 = System.nanoTime();
            if (batch == null) batch = ctx.newBatch();
            for (int i = 1; i < out; i++) {
                batch.clear();
                batch.add(tok, n + i - 1, 0, true);
                ctx.decode(batch);
                tok = LlamaContext.argmax(ctx.logits(0));
                ev.token(clock.getAsLong());
            }
            totals.decodeTokens.add(out - 1);
            totals.decodeNanos.add(System.nanoTime() - d0);
            ev.completed(clock.getAsLong());
            ended = true;
            if (p.remoteTokens() > 0) store.audit(r.blockKeys(), local, p.remoteTokens() / b, bufs);
            if (store != null) writeBack(r, start / b);
            if (p.remoteTokens() > 0 && verifyEvery > 0 && restoresSeen++ % verifyEvery == 0) checkRestore(r, toks, start, logits);
            if (tiers.local()) held = Arrays.copyOf(r.blockKeys(), r.fullBlocks());
        } catch (RuntimeException e) {
            held = new long[0];
            try {
                ctx.clear();
            } catch (RuntimeException ignored) {
                // the context is reported broken by the next request's own failure
            }
            String why = e.getClass().getSimpleName() + ": " + e.getMessage();
            if (!ended) ev.failed(why, clock.getAsLong());
            else totals.writeFailed("error after completion: " + why);
        } finally {
            ev.idle();
        }
    }

    /**
     * The sampled restore check: the same prompt recomputed in the restore's two batches (the restored prefix, then
     * the rest) must give the next token's logits the restore gave, within the tolerance. Off the measured path
     * (after the request completed); a mismatch is kept for the cell to fail on. Leaves the prompt in the context.
     */
    private void checkRestore(Request r, int[] toks, int start, float[] restored) {
        long t0 = System.nanoTime();
        ctx.clear();
        ctx.prefill(0, toks, 0, start, 0);
        float[] recomputed = ctx.prefill(0, toks, start, toks.length, start);
        double d = 0;
        for (int i = 0; i < restored.length; i++) d = Math.max(d, Math.abs(restored[i] - recomputed[i]));
        totals.logitChecks.increment();
        totals.logitCheckNanos.add(System.nanoTime() - t0);
        totals.logitMaxDiff.accumulate(d);
        if (!(d <= verifyTolerance))
            totals.logitMismatch.compareAndSet(null, String.format(java.util.Locale.ROOT, "request %d: after restoring %d tokens the next "
                    + "token's logits differ from a recompute of the same tokens by %.5g (tolerance %.5g)", r.id(), start, d, verifyTolerance));
    }

    /** Blocks from the first that {@code a} and {@code b} share, at most {@code max}. */
    private static int common(long[] a, long[] b, int max) {
        int n = Math.min(max, Math.min(a.length, b.length)), i = 0;
        while (i < n && a[i] == b[i]) i++;
        return i;
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
     * Restores the first {@code local + fetched} blocks: the kept prefix (taken from the context) then the fetched
     * payloads. False (the context cleared, the reason counted) when llama.cpp refuses the assembled state.
     */
    private boolean restore(int local, int fetched, int b) {
        try (Arena a = Arena.ofConfined()) {
            List<MemorySegment> blocks = new ArrayList<>(local + fetched);
            if (local > 0) {
                MemorySegment st = ctx.state(0, a);
                long t0 = System.nanoTime();
                KvStateCodec.Parsed parsed = KvStateCodec.parse(st);
                for (int k = 0; k < local; k++) {
                    MemorySegment dst = a.allocate(KvStateCodec.blockBytes(layout, b), 16);
                    KvStateCodec.copyBlock(parsed, st, b, k, dst);
                    blocks.add(dst);
                }
                totals.splitNanos.add(System.nanoTime() - t0);
                totals.splitBytes.add(local * KvStateCodec.blockBytes(layout, b));
            }
            for (int i = 0; i < fetched; i++) blocks.add(KvBlockObject.payload(bufs[i], store.payloadBytes()));
            long t1 = System.nanoTime();
            MemorySegment state = KvStateCodec.assemble(layout, b, blocks, a);
            totals.assembleNanos.add(System.nanoTime() - t1);
            totals.assembleBytes.add(state.byteSize());
            long t2 = System.nanoTime();
            ctx.clear();
            try {
                ctx.restore(0, state);
            } catch (IllegalStateException e) {
                ctx.clear();
                totals.rejected("restore_refused");
                return false;
            }
            totals.restoreNanos.add(System.nanoTime() - t2);
            totals.restores.increment();
            int tokens = (local + fetched) * b;
            if (ctx.maxPos(0) != tokens - 1)
                throw new IllegalStateException("after the restore the sequence ends at position " + ctx.maxPos(0) + ", expected " + (tokens - 1));
            return true;
        }
    }

    /** Writes the full prompt blocks from {@code from} on that the store does not hold yet (this request computed them). */
    private void writeBack(Request r, int from) {
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
            MemorySegment st = ctx.state(0, a);
            long t0 = System.nanoTime();
            KvStateCodec.Parsed parsed = KvStateCodec.parse(st);
            for (int i = 0; i < todo.size(); i++) {
                int k = todo.get(i);
                MemorySegment obj = bufs[i];
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

    @Override
    public void close() {
        if (worker.isShutdown()) return;
        worker.execute(() -> {
            if (batch != null) batch.close();
        });
        worker.shutdown();
        try {
            if (!worker.awaitTermination(60, TimeUnit.SECONDS)) worker.shutdownNow();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ctx.close();
    }
}
