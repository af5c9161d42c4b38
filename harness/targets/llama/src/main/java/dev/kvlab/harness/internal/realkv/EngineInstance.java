package dev.kvlab.harness.internal.realkv;

import dev.kvlab.harness.internal.llama.KvStateCodec;
import dev.kvlab.harness.internal.llama.KvStateLayout;
import dev.kvlab.harness.internal.llama.LlamaBatch;
import dev.kvlab.harness.internal.llama.LlamaContext;
import dev.kvlab.workloads.api.Request;
import java.lang.foreign.Arena;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One engine instance of a real-KV cell: a unified llama.cpp context and the engine thread that runs it, serving up
 * to {@code sequences} requests at once by continuous batching, as llama-server's slots do. Each step is one
 * {@code llama_decode} whose batch carries, in this order:
 * <ol>
 * <li>the next token of every sequence that is decoding (so no decoding sequence ever waits more than one step);</li>
 * <li>prompt tokens of the sequences still prefilling, oldest admission first, as many as fit in {@code batch_tokens}
 * with the decode tokens (a long prompt is prefilled in chunks over several steps; a prompt waits only for the
 * prompts admitted before it, so every prompt finishes within a bounded number of steps).</li>
 * </ol>
 * A request waiting for a free sequence is admitted between steps, in arrival order. On admission its prompt KV comes
 * from the tiers ({@link KvTiers}): blocks the context keeps, then the store's. What happens is reported through
 * {@link Events} with the loop's clock; it measures nothing itself.
 */
final class EngineInstance implements AutoCloseable {

    /** What the engine thread reports of one request, each with the loop time it happened (called on that thread). */
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
     * @param localTokens     reused from the context's own kept blocks
     * @param remoteTokens    fetched from the store, verified and restored
     * @param availableTokens the local prefix plus what the store held in a row after it
     * @param fetchedBytes    bytes the store delivered
     * @param fallbacks       blocks the store held that were recomputed (failed verification, or after one that did)
     * @param fetchNanos      fetch, verification, assembly and restore
     */
    record Prefix(int localTokens, int remoteTokens, int availableTokens, long fetchedBytes, int fallbacks, long fetchNanos) {}

    /**
     * How an instance's context is laid out: {@code sequences} request sequences (ids {@code 0…sequences-1}), one
     * scratch sequence (restores and restore checks), then the local tier's cache sequence ids; its cells hold every
     * request sequence's largest prompt and output, the scratch's largest prompt and the local tier's blocks, so a
     * step never runs out of cells.
     *
     * @param sequences     request sequences
     * @param batchTokens   tokens per step
     * @param localBlocks   blocks the local tier keeps (0: none)
     * @param cacheSeqs     cache sequence ids of the local tier
     * @param cells         KV cells of the context
     */
    record Shape(int sequences, int batchTokens, int localBlocks, int cacheSeqs, int cells) {

        /** The shape for a target, whether the tiers include local, the workload's largest request and its block size. */
        static Shape of(LlamaTargetConfig.Resolved t, boolean localTier, int mostPrompt, int mostOutput, int blockTokens) {
            int s = t.sequences();
            int blocks = localTier ? t.localCapacity().blocks(blockTokens) : 0;
            int ids = Math.min(blocks, LlamaContext.MAX_SEQ - s - 1);
            long cells = (long) s * (mostPrompt + mostOutput) + mostPrompt + (long) blocks * blockTokens;
            cells = (cells + 255) / 256 * 256;
            if (cells > Integer.MAX_VALUE) throw new IllegalArgumentException("a context of " + cells + " cells");
            return new Shape(s, Math.min(t.batchTokens(), (int) cells), blocks, ids, (int) cells);
        }

        int scratchSeq() { return sequences; }
        int firstCacheSeq() { return sequences + 1; }

        /** The shape in a cell's extras. */
        void extras(java.util.Map<String, Object> x) {
            x.put("target_sequences", sequences);
            x.put("target_batch_tokens", batchTokens);
            x.put("local_capacity_blocks", localBlocks);
            x.put("local_cache_sequence_ids", cacheSeqs);
            x.put("context_cells", cells);
        }

        LlamaContext.Options options(int threads, LlamaContext.FlashAttention flashAttention) {
            return new LlamaContext.Options(cells, batchTokens, sequences + 1 + cacheSeqs, threads, flashAttention, true);
        }
    }

    private record Pending(Request request, Events events) {}

    private static final Pending STOP = new Pending(null, null);

    private final LlamaContext ctx;
    private final KvTiers tiers;
    private final int vocab;
    private final RealKvTotals totals;
    private final LongSupplier clock;
    private final LinkedBlockingQueue<Pending> inbox = new LinkedBlockingQueue<>();
    /** Requests admitted, not yet given a sequence (engine thread only). */
    private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
    private final ArrayDeque<EngineSequence> free = new ArrayDeque<>();
    /** Sequences serving a request, in admission order (engine thread only). */
    private final List<EngineSequence> active = new ArrayList<>();
    private final Thread thread;
    /** The engine thread's CPU time: llama.cpp computes on the calling thread with one thread per context. */
    private final java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();

    /**
     * {@code store} null: no remote tier. {@code maxBlocks}: the most blocks a prompt has. {@code verifyEvery}: every
     * how many restores one is checked against a recompute (0: none), failing beyond {@code verifyTolerance}.
     */
    EngineInstance(int index, LlamaContext ctx, Shape shape, KvStateLayout layout, dev.kvlab.harness.api.config.Tiers tierConfig,
                   dev.kvlab.harness.api.config.Policy policy, KvBlockStore store, int maxBlocks, int blockTokens, RealKvTotals totals,
                   LongSupplier clock, int verifyEvery, double verifyTolerance) {
        this.ctx = ctx;
        this.vocab = ctx.model().vocabSize();
        this.totals = totals;
        this.clock = clock;
        KvBlockStore remote = tierConfig.remote() ? store : null;
        LocalPrefixCache local = tierConfig.local() && shape.localBlocks() > 0
                ? new LocalPrefixCache(new LocalPrefixCache.Cells() {
                    @Override public void share(int src, int dst, int p0, int p1) { ctx.copySeq(src, dst, p0, p1); }
                    @Override public void release(int seq, int p0, int p1) { ctx.removeSeq(seq, p0, p1); }
                }, shape.firstCacheSeq(), shape.cacheSeqs(), shape.localBlocks(), blockTokens)
                : null;
        this.tiers = new KvTiers(ctx, layout, policy, remote, local, totals, shape.scratchSeq(), verifyEvery, verifyTolerance);
        for (int s = 0; s < shape.sequences(); s++) {
            java.lang.foreign.MemorySegment[] bufs = new java.lang.foreign.MemorySegment[store == null ? 0 : maxBlocks];
            for (int i = 0; i < bufs.length; i++) bufs[i] = store.allocate();
            free.add(new EngineSequence(s, bufs));
        }
        this.thread = Thread.ofPlatform().daemon().name("kvlab-llama-" + index).start(this::run);
    }

    /** The state layout this release writes for a context's sequence 0: one token prefilled, its state parsed, cleared. */
    static KvStateLayout probeLayout(LlamaContext ctx) {
        ctx.clear();
        ctx.prefill(0, new int[] {PromptTokens.FIRST}, 0, 1, 0);
        try (Arena a = Arena.ofConfined()) {
            return KvStateCodec.parse(ctx.state(0, a)).layout();
        } finally {
            ctx.clear();
        }
    }

    /** Queues {@code r} for the engine thread. */
    void submit(Request r, Events ev) {
        inbox.add(new Pending(r, ev));
    }

    private void run() {
        boolean stopping = false;
        try (LlamaBatch batch = ctx.newBatch()) {
            while (!stopping || !active.isEmpty() || !waiting.isEmpty()) {
                Pending p = active.isEmpty() && waiting.isEmpty() && !stopping ? take() : inbox.poll();
                while (p != null) {
                    if (p == STOP) stopping = true;
                    else waiting.add(p);
                    p = inbox.poll();
                }
                try {
                    while (!waiting.isEmpty() && !free.isEmpty()) admit(waiting.poll(), free.poll());
                    if (!active.isEmpty()) step(batch);
                } catch (RuntimeException e) { // not one sequence's: every request in flight fails, the engine goes on
                    for (EngineSequence s : new ArrayList<>(active)) fail(s, e);
                }
            }
        }
    }

    private Pending take() {
        try {
            return inbox.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return STOP;
        }
    }

    private void admit(Pending p, EngineSequence s) {
        Request r = p.request();
        s.assign(r, p.events(), PromptTokens.of(r, vocab));
        active.add(s);
        try {
            p.events().admitted(clock.getAsLong());
            s.prefix = tiers.load(s);
            p.events().prefix(s.prefix, clock.getAsLong());
            tiers.keep(s); // blocks lent or restored are kept at once
        } catch (RuntimeException e) {
            fail(s, e);
        }
    }

    /** One {@code llama_decode}: every decoding sequence's next token, then prompt chunks in admission order. */
    private void step(LlamaBatch batch) {
        batch.clear();
        int decodeTokens = 0, promptTokens = 0, sequences = 0;
        for (EngineSequence s : active) {
            s.inStep = EngineSequence.InStep.NONE;
            if (!s.decoding) continue;
            s.logitsIndex = batch.add(s.lastToken, s.pos, s.seq, true);
            s.inStep = EngineSequence.InStep.DECODE;
            decodeTokens++;
            sequences++;
        }
        for (EngineSequence s : active) {
            if (!s.prefilling()) continue;
            int take = Math.min(batch.capacity() - batch.size(), s.promptTokens() - s.next);
            if (take <= 0) break;
            for (int i = s.next; i < s.next + take; i++) s.logitsIndex = batch.add(s.tokens[i], i, s.seq, i == s.promptTokens() - 1);
            s.stepTokens = take;
            s.inStep = EngineSequence.InStep.PREFILL;
            promptTokens += take;
            sequences++;
        }
        long t0 = System.nanoTime(), c0 = cpu.getCurrentThreadCpuTime();
        try {
            ctx.decode(batch);
        } catch (RuntimeException e) {
            for (EngineSequence s : new ArrayList<>(active)) if (s.inStep != EngineSequence.InStep.NONE) fail(s, e);
            return;
        }
        long took = System.nanoTime() - t0, now = clock.getAsLong();
        totals.stepCpuNanos.add(cpu.getCurrentThreadCpuTime() - c0);
        account(took, decodeTokens, promptTokens, sequences);
        // every sequence's logits first: what follows (a restore check) may decode again, which replaces them
        for (EngineSequence s : new ArrayList<>(active)) {
            boolean last = s.inStep == EngineSequence.InStep.DECODE
                    || (s.inStep == EngineSequence.InStep.PREFILL && s.next + s.stepTokens == s.promptTokens());
            if (!last) continue;
            try {
                float[] logits = ctx.logits(s.logitsIndex);
                s.stepToken = LlamaContext.argmax(logits);
                if (s.inStep == EngineSequence.InStep.PREFILL && s.fetchedBlocks > 0) s.firstLogits = logits;
            } catch (RuntimeException e) {
                s.inStep = EngineSequence.InStep.NONE;
                fail(s, e);
            }
        }
        for (EngineSequence s : new ArrayList<>(active)) {
            try {
                switch (s.inStep) {
                    case DECODE -> decoded(s, now);
                    case PREFILL -> prefilled(s, now);
                    case NONE -> { }
                }
            } catch (RuntimeException e) {
                fail(s, e);
            }
        }
    }

    /**
     * The step's time shared among its tokens: a prompt token and a decode token in one step are counted alike (the
     * engine's prefill rate and decode time per token as a mixed batch gives them).
     */
    private void account(long took, int decodeTokens, int promptTokens, int sequences) {
        int all = decodeTokens + promptTokens;
        totals.steps.increment();
        totals.stepNanos.add(took);
        totals.stepTokens.add(all);
        totals.stepSequences.add(sequences);
        long prefillShare = took * promptTokens / all;
        totals.prefillTokens.add(promptTokens);
        totals.prefillNanos.add(prefillShare);
        totals.decodeTokens.add(decodeTokens);
        totals.decodeNanos.add(took - prefillShare);
        if (promptTokens >= 32) tiers.prefillRate((double) took / all);
    }

    private void decoded(EngineSequence s, long now) {
        s.lastToken = s.stepToken;
        s.pos++;
        s.outputsDone++;
        s.events.token(now);
        if (s.outputsDone >= s.outputTarget()) complete(s, now);
    }

    private void prefilled(EngineSequence s, long now) {
        s.next += s.stepTokens;
        s.stepTokens = 0;
        tiers.keep(s);
        if (s.next < s.promptTokens()) return;
        s.lastToken = s.stepToken;
        s.pos = s.promptTokens();
        s.outputsDone = 1;
        s.events.firstToken(now);
        if (s.outputsDone >= s.outputTarget()) complete(s, now);
        else s.decoding = true;
    }

    private void complete(EngineSequence s, long now) {
        s.events.completed(now);
        try {
            tiers.completed(s);
        } catch (RuntimeException e) {
            totals.writeFailed("error after completion: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        release(s);
    }

    private void fail(EngineSequence s, RuntimeException e) {
        s.events.failed(e.getClass().getSimpleName() + ": " + e.getMessage(), clock.getAsLong());
        release(s);
    }

    private void release(EngineSequence s) {
        active.remove(s);
        try {
            ctx.removeSeq(s.seq, -1, -1);
        } catch (RuntimeException ignored) {
            // the context is reported broken by the next request's own failure
        }
        Events ev = s.events;
        s.assign(null, null, null);
        free.add(s);
        ev.idle();
    }

    @Override
    public void close() {
        if (thread.isAlive()) {
            inbox.add(STOP);
            try {
                thread.join(TimeUnit.SECONDS.toMillis(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (!thread.isAlive()) ctx.close();
    }
}
