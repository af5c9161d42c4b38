package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.catalog.StepPrice;
import dev.kvlab.harness.llama.internal.KvStateCodec;
import dev.kvlab.harness.llama.internal.KvStateLayout;
import dev.kvlab.harness.llama.internal.LlamaBatch;
import dev.kvlab.harness.llama.internal.LlamaContext;
import dev.kvlab.workloads.api.Request;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
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
 * from the tiers ({@link KvTiers}): blocks the context keeps, then the store's. The engine thread never waits for
 * the store: a fetch runs on one of the instance's {@value #IO_THREADS} I/O threads while the engine goes on stepping
 * the other sequences, and its blocks are restored (context work) on the engine thread between steps once they are
 * back; a completed request's new blocks are split out of the context on the engine thread and put by an I/O thread,
 * from the sequence's buffers, which a spare set replaces meanwhile (when none is spare, the sequence waits for its
 * write-back before it serves again). Every I/O job is for a sequence or a buffer set, so the I/O queue holds at most
 * {@code 2 × sequences} jobs. What happens is reported through {@link Events} with the loop's clock; it measures
 * nothing itself.
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

        /** PD: the request's KV was handed to its decode instance, or its handover failed and it is recomputed there. */
        default void handedOver(dev.kvlab.harness.spi.Handover h, long now) {}

        /**
         * PD: the request's events on its decode instance, whose work ({@link #idle}) counts apart from the prefill
         * instance's (asked for by the prefill instance when it hands the request over).
         */
        default Events decodeSide() {
            throw new UnsupportedOperationException("not a disaggregated request");
        }

        /** Events nothing reads, its own decode side: a handover timed or tested apart from any request. */
        Events IGNORED = new Events() {
            @Override
            public void admitted(long now) {}

            @Override
            public void prefix(Prefix p, long now) {}

            @Override
            public void firstToken(long now) {}

            @Override
            public void token(long now) {}

            @Override
            public void completed(long now) {}

            @Override
            public void failed(String why, long now) {}

            @Override
            public void idle() {}

            @Override
            public Events decodeSide() {
                return this;
            }
        };
    }

    /** What an instance does: both (colocated), or, disaggregated, only prefill or only decode. */
    enum Role {
        COLOCATED,
        PREFILL,
        DECODE
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
    record Prefix(
            int localTokens,
            int remoteTokens,
            int availableTokens,
            long fetchedBytes,
            int fallbacks,
            long fetchNanos) {}

    /**
     * How an instance's context is laid out: {@code sequences} request sequences (ids {@code 0…sequences-1}), one
     * scratch sequence (restores and restore checks), then the local tier's cache sequence ids; its cells hold every
     * request sequence's largest prompt and output, the scratch's largest prompt and the local tier's blocks, so a
     * step never runs out of cells.
     *
     * <p>With a local tier the context is <b>unified</b> (one KV stream: the tier's kept blocks are cells shared by the
     * sequences that use them, {@link LlamaContext#copySeq}). Without one, each sequence has its <b>own stream</b>
     * ({@code kv_unified = false}, as llama-server runs with {@code -np}): in a unified stream every token's attention
     * spans the cells of all sequences (masked), so a step's attention grows with the sum of the sequences' contexts;
     * with a stream per sequence only with its own. Measured ({@code kvlab bench engine}): this alone is most of the
     * difference to llama-server at 4 sequences.
     *
     * @param sequences     request sequences
     * @param batchTokens   tokens per step
     * @param localBlocks   blocks the local tier keeps (0: none)
     * @param cacheSeqs     cache sequence ids of the local tier
     * @param cells         KV cells of the context (all streams)
     * @param unified       one KV stream shared by all sequences (only with a local tier), else one per sequence
     */
    record Shape(int sequences, int batchTokens, int localBlocks, int cacheSeqs, int cells, boolean unified) {

        /** The shape for a target, whether the tiers include local, the workload's largest request and its block size. */
        static Shape of(
                LlamaTargetConfig.Resolved t, boolean localTier, int mostPrompt, int mostOutput, int blockTokens) {
            int s = t.sequences();
            int blocks = localTier ? t.localCapacity().blocks(blockTokens) : 0;
            int ids = Math.min(blocks, LlamaContext.MAX_SEQ - s - 1);
            boolean unified = blocks > 0;
            long cells;
            if (unified) {
                cells = (long) s * (mostPrompt + mostOutput) + mostPrompt + (long) blocks * blockTokens;
                cells = (cells + 255) / 256 * 256;
            } else { // llama.cpp gives each of the n_seq_max streams n_ctx / n_seq_max cells
                long perStream = ((long) mostPrompt + mostOutput + 255) / 256 * 256;
                cells = perStream * (s + 1);
            }
            if (cells > Integer.MAX_VALUE) throw new IllegalArgumentException("a context of " + cells + " cells");
            int perStep = unified ? (int) cells : (int) (cells / (s + 1)) * s;
            return new Shape(s, Math.min(t.batchTokens(), perStep), blocks, ids, (int) cells, unified);
        }

        int scratchSeq() {
            return sequences;
        }

        int firstCacheSeq() {
            return sequences + 1;
        }

        /** The shape in a cell's extras. */
        void extras(Figures x) {
            LlamaColumns.TARGET_SEQUENCES.put(x, sequences);
            LlamaColumns.TARGET_BATCH_TOKENS.put(x, batchTokens);
            LlamaColumns.LOCAL_CAPACITY_BLOCKS.put(x, localBlocks);
            LlamaColumns.LOCAL_CACHE_SEQUENCE_IDS.put(x, cacheSeqs);
            LlamaColumns.CONTEXT_CELLS.put(x, cells);
            LlamaColumns.ENGINE_KV_STREAMS.put(
                    x,
                    unified
                            ? "unified (one stream: the local tier shares cells among sequences)"
                            : (sequences + 1) + " (one per sequence and the scratch, as llama-server -np)");
        }

        LlamaContext.Options options(int threads, LlamaContext.FlashAttention flashAttention) {
            return new LlamaContext.Options(
                    cells, batchTokens, sequences + 1 + cacheSeqs, threads, flashAttention, unified);
        }
    }

    /** I/O threads per instance: a fetch need not wait for a write-back's puts. */
    static final int IO_THREADS = 2;

    /** What the engine thread is told: a request, a fetch back from the store, a write-back done. */
    private sealed interface Message
            permits Pending, FetchDone, WriteDone, CheckRestores, Primed, HandoverSent, HandoverChecked, SlotFree {}

    /** PD, prefill side: the handover of {@code s} is sent (or failed): the sequence is done with the request. */
    private record HandoverSent(EngineSequence s) implements Message {}

    /** PD, decode side: the check (after the get, on the store path) of {@code s}'s handover is back. */
    private record HandoverChecked(EngineSequence s) implements Message {}

    /** PD, prefill side: a decode instance freed a handover slot. */
    private record SlotFree() implements Message {}

    /** Take ({@code restore} false) or put back the primed state: the context's and the tiers' (nothing in flight). */
    private record Primed(boolean restore, java.util.concurrent.CompletableFuture<Void> done) implements Message {}

    /** Run the sampled restore checks kept so far (after a phase, nothing in flight); {@code done} when they ran. */
    private record CheckRestores(java.util.concurrent.CompletableFuture<Void> done) implements Message {}

    /** A request to serve; {@code parcel}: PD, decode side, its prompt's handover. */
    private record Pending(Request request, Events events, PdHandover.Parcel parcel) implements Message {}

    /** A fetch for {@code s} is back: its outcome and its verified blocks assembled ({@code state}), or what it threw. */
    private record FetchDone(
            EngineSequence s, KvBlockStore.Fetched fetched, MemorySegment state, RuntimeException error)
            implements Message {}

    /**
     * A write-back's puts are done: {@code bufs} is spare again, or {@code held} (the sequence that waited for its
     * buffers) is free; {@code events} is told the request's work is over.
     */
    private record WriteDone(MemorySegment[] bufs, EngineSequence held, Events events) implements Message {}

    private static final Pending STOP = new Pending(null, null, null);

    private final LlamaContext ctx;
    private final KvTiers tiers;
    private final int vocab;
    /** The most blocks a prompt has (what a fetch's state buffer holds). */
    private final int maxBlocks;

    private final RealKvTotals totals;
    private final LongSupplier clock;
    private final LinkedBlockingQueue<Message> inbox = new LinkedBlockingQueue<>();
    /** Store I/O of this instance (null: no remote tier); its queue is bounded by the jobs there can be. */
    private final ThreadPoolExecutor io;
    /** Buffer sets no sequence holds, for write-backs in flight to take over (engine thread only). */
    private final ArrayDeque<MemorySegment[]> spare = new ArrayDeque<>();
    /** Fetches and write-backs not yet back (engine thread only). */
    private int ioInFlight;
    /** Requests admitted, not yet given a sequence (engine thread only). */
    private final ArrayDeque<Pending> waiting = new ArrayDeque<>();

    private final ArrayDeque<EngineSequence> free = new ArrayDeque<>();
    /** Sequences serving a request, in admission order (engine thread only). */
    private final List<EngineSequence> active = new ArrayList<>();
    /** The current step's sequences, in sequence-id order. */
    private final List<EngineSequence> inBatch = new ArrayList<>();

    private static final java.util.Comparator<EngineSequence> BY_SEQ = java.util.Comparator.comparingInt(s -> s.seq);
    private final Thread thread;
    private final Role role;
    /** PD: the handover path (null: colocated). */
    private final PdHandover pd;
    /** PD: the handover's context side (split on a prefill instance, restore on a decode instance). */
    private final RemotePrefix handoverCodec;
    /** PD, prefill side: sequences whose prompt is done, waiting for a decode slot (engine thread only). */
    private final ArrayDeque<EngineSequence> handoverWaiting = new ArrayDeque<>();
    /** The engine thread's CPU time: llama.cpp computes on the calling thread with one thread per context. */
    private final java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();

    /**
     * {@code store} null: no remote tier. {@code maxBlocks}: the most blocks a prompt has. {@code verifyEvery}: every
     * how many restores one is checked against a recompute (0: none), failing beyond {@code verifyTolerance}.
     */
    EngineInstance(
            int index,
            LlamaContext ctx,
            Shape shape,
            KvStateLayout layout,
            dev.kvlab.harness.api.config.Tiers tierConfig,
            dev.kvlab.harness.api.config.Policy policy,
            KvBlockStore store,
            int maxBlocks,
            int blockTokens,
            RealKvTotals totals,
            LongSupplier clock,
            int verifyEvery,
            double verifyTolerance) {
        this(
                index,
                ctx,
                shape,
                layout,
                tierConfig,
                policy,
                store,
                maxBlocks,
                blockTokens,
                totals,
                clock,
                verifyEvery,
                verifyTolerance,
                Role.COLOCATED,
                null);
    }

    /** {@code role} and {@code pd}: PD disaggregation (a decode instance has no tiers of its own: its KV comes from handovers). */
    EngineInstance(
            int index,
            LlamaContext ctx,
            Shape shape,
            KvStateLayout layout,
            dev.kvlab.harness.api.config.Tiers tierConfig,
            dev.kvlab.harness.api.config.Policy policy,
            KvBlockStore store,
            int maxBlocks,
            int blockTokens,
            RealKvTotals totals,
            LongSupplier clock,
            int verifyEvery,
            double verifyTolerance,
            Role role,
            PdHandover pd) {
        this.role = role;
        this.pd = pd;
        this.unified = shape.unified();
        this.blockTokens = blockTokens;
        this.handoverCodec =
                pd == null ? null : new RemotePrefix(ctx, layout, store, totals, shape.scratchSeq(), blockTokens);
        if (role == Role.DECODE) tierConfig = dev.kvlab.harness.api.config.Tiers.NONE;
        this.ctx = ctx;
        this.vocab = ctx.model().vocabSize();
        this.maxBlocks = maxBlocks;
        this.totals = totals;
        this.clock = clock;
        KvBlockStore remote = tierConfig.remote() ? store : null;
        LocalPrefixCache local = tierConfig.local() && shape.localBlocks() > 0
                ? new LocalPrefixCache(
                        new LocalPrefixCache.Cells() {
                            @Override
                            public void share(int src, int dst, int p0, int p1) {
                                ctx.copySeq(src, dst, p0, p1);
                            }

                            @Override
                            public void release(int seq, int p0, int p1) {
                                ctx.removeSeq(seq, p0, p1);
                            }
                        },
                        shape.firstCacheSeq(),
                        shape.cacheSeqs(),
                        shape.localBlocks(),
                        blockTokens)
                : null;
        this.tiers = new KvTiers(
                ctx,
                layout,
                policy,
                remote,
                local,
                totals,
                shape.scratchSeq(),
                blockTokens,
                verifyEvery,
                verifyTolerance);
        for (int s = 0; s < shape.sequences(); s++) {
            EngineSequence seq = new EngineSequence(s, buffers(store, maxBlocks));
            if (role == Role.PREFILL || (role == Role.DECODE && pd.viaStore())) seq.pdBufs = pd.buffers();
            if (role == Role.DECODE && pd.viaStore()) seq.pdState = handoverCodec.newStateBuffer(pd.maxTokens());
            free.add(seq);
            if (remote != null) spare.add(buffers(store, maxBlocks));
        }
        // a handover, a fetch, a write-back and a store handover's removal per sequence at most
        this.io = remote == null && pd == null
                ? null
                : new ThreadPoolExecutor(
                        IO_THREADS,
                        IO_THREADS,
                        0,
                        TimeUnit.SECONDS,
                        new ArrayBlockingQueue<>(4 * shape.sequences()),
                        Thread.ofPlatform()
                                .daemon()
                                .name("kvlab-llama-" + index + "-io-", 0)
                                .factory());
        this.thread = Thread.ofPlatform().daemon().name("kvlab-llama-" + index).start(this::run);
    }

    private static MemorySegment[] buffers(KvBlockStore store, int n) {
        MemorySegment[] bufs = new MemorySegment[store == null ? 0 : n];
        for (int i = 0; i < bufs.length; i++) bufs[i] = store.allocate();
        return bufs;
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

    /**
     * Runs the sampled restore checks of the requests served so far on the engine thread and waits for them: called
     * between phases (nothing in flight), so that a check's recompute never shares a step with a measured request.
     */
    void checkRestores() {
        var done = new java.util.concurrent.CompletableFuture<Void>();
        inbox.add(new CheckRestores(done));
        try {
            done.get(10, TimeUnit.MINUTES);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the restore checks did not finish in 10 minutes");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the restore checks ran");
        }
    }

    /** The primed state (context and tiers) as {@link #primed(boolean)} took it; engine thread only. */
    private Arena primedArena;

    private MemorySegment primedContext;
    private KvTiers.Snapshot primedTiers;

    private void snapshotPrimed() {
        if (!active.isEmpty() || !waiting.isEmpty() || ioInFlight > 0)
            throw new IllegalStateException("a snapshot with requests in flight");
        if (primedArena != null) primedArena.close();
        primedArena = Arena.ofShared();
        primedContext = ctx.stateAll(primedArena);
        primedTiers = tiers.snapshot();
    }

    private void restorePrimed() {
        if (!active.isEmpty() || !waiting.isEmpty() || ioInFlight > 0)
            throw new IllegalStateException("a restore with requests in flight");
        if (primedContext == null) throw new IllegalStateException("no primed state taken");
        ctx.restoreAll(primedContext);
        tiers.restore(primedTiers);
    }

    /**
     * Takes the instance's primed state (after a warm-up: the context's KV cells and the local tier's bookkeeping), or
     * ({@code restore}) puts it back, on the engine thread with nothing in flight; waits until done.
     */
    void primed(boolean restore) {
        var done = new java.util.concurrent.CompletableFuture<Void>();
        inbox.add(new Primed(restore, done));
        try {
            done.get(10, TimeUnit.MINUTES);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(
                    "the primed state was not " + (restore ? "restored" : "taken") + " in 10 minutes");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(
                    "interrupted while the primed state was " + (restore ? "restored" : "taken"));
        }
    }

    /** Why this instance's tiers may have lost blocks since it started (null: none lost); between phases. */
    String stale() {
        return tiers.stale();
    }

    /** Queues {@code r} for the engine thread. */
    void submit(Request r, Events ev) {
        inbox.add(new Pending(r, ev, null));
    }

    /** PD, decode side: a handover arrived (any thread). */
    void handover(PdHandover.Parcel p) {
        inbox.add(new Pending(p.request, p.events, p));
    }

    /** PD, prefill side: a decode slot is free (any thread). */
    void slotFree() {
        inbox.add(new SlotFree());
    }

    private void run() {
        boolean stopping = false;
        try (LlamaBatch batch = ctx.newBatch()) {
            while (!stopping || !active.isEmpty() || !waiting.isEmpty() || ioInFlight > 0) {
                boolean work = runnable() || (!waiting.isEmpty() && !free.isEmpty());
                Message m;
                if (work) {
                    m = inbox.poll();
                } else {
                    try {
                        m = inbox.take(); // nothing to step: wait for a request, a fetch or a write-back
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                while (m != null) {
                    switch (m) {
                        case Pending p when p == STOP -> stopping = true;
                        case Pending p -> waiting.add(p);
                        case HandoverSent h -> handoverSent(h.s());
                        case HandoverChecked h -> handoverChecked(h.s());
                        case SlotFree f -> {} // the handovers waiting are tried below
                        case FetchDone f -> fetched(f);
                        case WriteDone w -> written(w);
                        case Primed p -> {
                            try {
                                if (p.restore()) restorePrimed();
                                else snapshotPrimed();
                                p.done().complete(null);
                            } catch (RuntimeException e) {
                                p.done().completeExceptionally(e);
                            }
                        }
                        case CheckRestores c -> {
                            try {
                                tiers.checkPending();
                                c.done().complete(null);
                            } catch (RuntimeException e) {
                                c.done().completeExceptionally(e);
                            }
                        }
                    }
                    m = inbox.poll();
                }
                try {
                    while (!waiting.isEmpty() && !free.isEmpty()) admit(waiting.poll(), free.poll());
                    if (!handoverWaiting.isEmpty()) sendHandovers();
                    if (runnable()) step(batch);
                } catch (RuntimeException e) { // not one sequence's: every request in flight fails, the engine goes on
                    for (EngineSequence s : new ArrayList<>(active)) fail(s, e);
                }
            }
        } finally {
            if (io != null) io.shutdown();
        }
    }

    private boolean runnable() {
        for (EngineSequence s : active) if (s.runnable()) return true;
        return false;
    }

    /** Hands {@code job} to the I/O threads (counted until its message is back). */
    private void submitIo(Runnable job) {
        ioInFlight++;
        try {
            io.execute(job);
        } catch (RuntimeException e) {
            ioInFlight--;
            throw e;
        }
    }

    private void admit(Pending p, EngineSequence s) {
        Request r = p.request();
        s.assign(r, p.events(), PromptTokens.of(r, vocab));
        active.add(s);
        if (p.parcel() != null) {
            admitHandover(p.parcel(), s);
            return;
        }
        try {
            p.events().admitted(clock.getAsLong());
            if (tiers.lend(s)) {
                long start = System.nanoTime();
                long[] keys = r.blockKeys();
                int lent = s.localBlocks, to = s.fetchTo;
                MemorySegment[] bufs = s.bufs;
                if (s.fetchState == null) s.fetchState = tiers.fetchStateBuffer(maxBlocks);
                MemorySegment into = s.fetchState;
                s.fetching = true;
                s.fetchStart = start;
                submitIo(() -> {
                    KvBlockStore.Fetched f = null;
                    MemorySegment state = null;
                    RuntimeException error = null;
                    try {
                        f = tiers.fetch(keys, lent, to, bufs);
                        // assembled here, off the engine thread: it only restores (the other sequences step
                        // meanwhile)
                        if (f.usable() > 0) state = tiers.assemble(lent, f.usable(), bufs, into);
                    } catch (RuntimeException e) {
                        error = e;
                    }
                    inbox.add(new FetchDone(s, f, state, error));
                });
            } else {
                s.prefix = tiers.localOnly(s);
                p.events().prefix(s.prefix, clock.getAsLong());
                tiers.keep(s); // blocks lent are kept at once
            }
        } catch (RuntimeException e) {
            s.fetching = false;
            fail(s, e);
        }
    }

    /** A fetch is back (engine thread): its verified blocks restored, the sequence prefills the rest from the next step. */
    private void fetched(FetchDone d) {
        ioInFlight--;
        EngineSequence s = d.s();
        s.fetching = false;
        if (s.abandoned) { // its request failed meanwhile
            recycle(s);
            return;
        }
        try {
            if (d.error() != null) throw d.error();
            s.prefix = tiers.restored(s, d.fetched(), d.state(), s.fetchStart);
            s.events.prefix(s.prefix, clock.getAsLong());
            tiers.keep(s); // blocks restored are kept at once
        } catch (RuntimeException e) {
            fail(s, e);
        }
    }

    /** A write-back is done (engine thread): its buffers are spare again, or its sequence free. */
    private void written(WriteDone w) {
        ioInFlight--;
        if (w.bufs() == null && w.held() == null) return; // a store handover's removal
        if (w.held() != null) recycle(w.held());
        else {
            spare.add(w.bufs());
            w.events().idle();
        }
    }

    /** The twin's price of a step ({@link #priceSteps}; null: the cell has no twin). */
    private volatile StepPrice price;
    /** One KV stream shared by the sequences; tokens per block. */
    private final boolean unified;

    private final int blockTokens;

    /**
     * Prices each step from now on with {@code roofline} (the cell's sim twin's), as the sim prices its steps: what
     * {@code engine_step_time_over_twin} sets the steps' measured time against. Null: no pricing.
     */
    void priceSteps(Roofline roofline) {
        price = roofline == null ? null : new StepPrice(roofline);
    }

    /**
     * The step being built, priced: every decoding sequence's token after its context, then every prompt chunk after
     * the sequence's prompt tokens already in KV; a shared (unified) stream spans its cells in use, as the sim counts
     * them: the local tier's kept blocks and every active sequence's tokens but those lent from it (a lend shares the
     * kept cells). Counting lent prefixes again (as before) overstated the span: on check 27's config (combined, 17
     * req/s) llama.cpp's own count ({@code LLAMA_KV_CACHE_DEBUG}: the last cell in use) was 5,020 at the median, this
     * count about 4,400 and the one before 8,400.
     */
    private double priceOf(StepPrice p) {
        p.clear();
        for (EngineSequence s : active) if (s.inStep == EngineSequence.InStep.DECODE) p.decode(s.pos);
        for (EngineSequence s : active)
            if (s.inStep == EngineSequence.InStep.PREFILL)
                p.chunk(s.stepTokens, s.next, s.next + s.stepTokens == s.promptTokens());
        if (!unified) return p.seconds(Double.NaN);
        long used = (long) tiers.keptBlocks() * blockTokens;
        for (EngineSequence s : active)
            used += Math.max(0, (s.decoding ? s.pos : s.next) - (long) s.localBlocks * blockTokens);
        return p.seconds(used);
    }

    /**
     * One {@code llama_decode}: every decoding sequence's next token, then prompt chunks in admission order up to the
     * step's room; in the batch by sequence id.
     */
    private void step(LlamaBatch batch) {
        batch.clear();
        int decodeTokens = 0, promptTokens = 0, sequences = 0, room = batch.capacity();
        for (EngineSequence s : active) {
            s.inStep = EngineSequence.InStep.NONE;
            if (!s.decoding) continue;
            s.inStep = EngineSequence.InStep.DECODE;
            room--;
            decodeTokens++;
            sequences++;
        }
        for (EngineSequence s : active) {
            if (!s.prefilling()) continue;
            int take = Math.min(room, s.promptTokens() - s.next);
            if (take <= 0) break;
            s.stepTokens = take;
            s.inStep = EngineSequence.InStep.PREFILL;
            room -= take;
            promptTokens += take;
            sequences++;
        }
        // into the batch in sequence-id order (which prompts get the room stays by admission), as llama-server adds its
        // slots: with a KV stream per sequence llama.cpp splits a batch into micro-batches of consecutive sequence ids
        // (split_equal, sequential), each a pass that reads the weights again, and admission order broke runs of ids.
        // Measured on a 4-layer model: a step of four decode tokens 7.0 ms in admission order, 6.3 ms in id order (most
        // of
        // a decode token's cost on this CPU is its own, not the pass's)
        inBatch.clear();
        for (EngineSequence s : active) if (s.inStep != EngineSequence.InStep.NONE) inBatch.add(s);
        inBatch.sort(BY_SEQ);
        for (EngineSequence s : inBatch) {
            if (s.inStep == EngineSequence.InStep.DECODE) s.logitsIndex = batch.add(s.lastToken, s.pos, s.seq, true);
            else
                for (int i = s.next; i < s.next + s.stepTokens; i++)
                    s.logitsIndex = batch.add(s.tokens[i], i, s.seq, i == s.promptTokens() - 1);
        }
        StepPrice p = price;
        double priced = p == null ? Double.NaN : priceOf(p);
        long t0 = System.nanoTime(), c0 = cpu.getCurrentThreadCpuTime();
        try {
            ctx.decode(batch);
        } catch (RuntimeException e) {
            for (EngineSequence s : new ArrayList<>(active)) if (s.inStep != EngineSequence.InStep.NONE) fail(s, e);
            return;
        }
        long took = System.nanoTime() - t0, now = clock.getAsLong();
        long stepCpu = cpu.getCurrentThreadCpuTime() - c0;
        totals.stepCpuNanos.add(stepCpu);
        account(took, stepCpu, decodeTokens, promptTokens, sequences);
        if (priced > 0) {
            totals.pricedStepNanos.add(took);
            totals.priceNanos.add(Math.round(priced * 1e9));
        }
        // every sequence's logits first: what follows (a restore check) may decode again, which replaces them
        for (EngineSequence s : new ArrayList<>(active)) {
            boolean last = s.inStep == EngineSequence.InStep.DECODE
                    || (s.inStep == EngineSequence.InStep.PREFILL && s.next + s.stepTokens == s.promptTokens());
            if (!last) continue;
            try {
                if (s.inStep == EngineSequence.InStep.PREFILL && s.fetchedBlocks > 0) { // kept for the restore check
                    float[] logits = ctx.logits(s.logitsIndex);
                    s.stepToken = LlamaContext.argmax(logits);
                    s.firstLogits = logits;
                } else {
                    s.stepToken = ctx.argmaxAt(s.logitsIndex);
                }
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
                    case NONE -> {}
                }
            } catch (RuntimeException e) {
                fail(s, e);
            }
        }
    }

    /**
     * The step's time shared among its tokens: a prompt token and a decode token in one step are counted alike (the
     * engine's prefill rate and decode time per token as a mixed batch gives them). A decoding step whose wall time
     * exceeds its thread's CPU time by {@link #DESCHEDULED_NANOS} or more waited for a core (counted).
     */
    private void account(long took, long cpuNanos, int decodeTokens, int promptTokens, int sequences) {
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
        if (role != Role.PREFILL) {
            totals.decodeSidePromptTokens.add(promptTokens);
            if (decodeTokens > 0) {
                totals.decodingSteps.increment();
                if (promptTokens > 0) totals.decodingStepsWithPrompt.increment();
                if (took - cpuNanos >= DESCHEDULED_NANOS) totals.decodingStepsDescheduled.increment();
            }
        }
    }

    /**
     * A step this much longer than its thread's CPU time waited for a core: longer than a wake-up's latency, shorter
     * than the scheduler's slice (0.75-3 ms) that a thread which took the core may run before it yields it.
     */
    static final long DESCHEDULED_NANOS = 1_000_000;

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
        if (role == Role.PREFILL
                && s.outputsDone < s.outputTarget()) { // decoded elsewhere: its KV and first token are handed over
            s.prefilledAt = now;
            handoverWaiting.add(s);
            sendHandovers();
            return;
        }
        s.events.firstToken(now);
        if (s.outputsDone >= s.outputTarget()) complete(s, now);
        else s.decoding = true;
    }

    /**
     * PD, prefill side (engine thread): each prompt done that a decode instance has a slot for, in order, is split
     * into its sequence's staging buffers and sent by an I/O thread; the rest wait for a {@link SlotFree}.
     */
    private void sendHandovers() {
        while (!handoverWaiting.isEmpty()) {
            EngineSequence s = handoverWaiting.peek();
            PdHandover.Parcel p;
            try {
                p = pd.reserve(s.request, s.events, s.promptTokens(), s.lastToken, s.prefilledAt);
            } catch (RuntimeException e) {
                handoverWaiting.poll();
                fail(s, e);
                continue;
            }
            if (p == null) return;
            handoverWaiting.poll();
            pd.stage(p, handoverCodec, s.seq, s.pdBufs);
            PdHandover.Staging st = s.pdBufs;
            try {
                submitIo(() -> {
                    try {
                        pd.send(p, st);
                        pd.decoderOf(p).handover(p);
                    } finally {
                        inbox.add(new HandoverSent(s));
                    }
                });
            } catch (RuntimeException e) {
                p.error = "not sent: " + e.getMessage();
                p.arrivedAt = clock.getAsLong();
                pd.decoderOf(p).handover(p);
                handoverSent(s);
            }
        }
    }

    /** PD, prefill side: the handover of {@code s} is out; the request is done here (its prompt's blocks written back as a colocated one's). */
    private void handoverSent(EngineSequence s) {
        ioInFlight--;
        writeBackAndRelease(s);
    }

    /**
     * PD, decode side (engine thread): a handover takes sequence {@code s}. An I/O thread gets its KV (store path; the
     * direct path's is in the receive slot already), checks it ({@link PdHandover#check}: verification and audit) and
     * assembles llama.cpp's state of it, while this thread goes on stepping the decoding sequences; then
     * {@link #takeOver} restores it (the one part a decoding sequence waits for, as it needs the context).
     */
    private void admitHandover(PdHandover.Parcel p, EngineSequence s) {
        s.parcel = p;
        p.decodeAdmittedAt = clock.getAsLong();
        s.fetching = true;
        MemorySegment[] dst = s.pdBufs == null ? null : s.pdBufs.objs(); // the store path's get buffers
        try {
            submitIo(() -> {
                try {
                    if (p.error == null && pd.viaStore()) {
                        try {
                            pd.fetch(p, dst);
                        } catch (RuntimeException e) {
                            p.error = "get failed: " + e.getClass().getSimpleName() + ": " + e.getMessage();
                        }
                    }
                    p.refused = pd.check(p);
                    if (p.refused == null) p.state = pd.stateOf(p, handoverCodec, s.pdState);
                } catch (RuntimeException e) {
                    p.refused = "check failed: " + e.getClass().getSimpleName() + ": " + e.getMessage();
                } finally {
                    inbox.add(new HandoverChecked(s));
                }
            });
        } catch (RuntimeException e) {
            s.fetching = false;
            p.refused = (p.error = "get not started: " + e.getMessage());
            takeOver(s);
        }
    }

    private void handoverChecked(EngineSequence s) {
        ioInFlight--;
        s.fetching = false;
        if (s.abandoned) {
            pd.release(s.parcel);
            recycle(s);
            return;
        }
        takeOver(s);
    }

    /**
     * PD, decode side (engine thread): the handover, checked, restored; the prefill's first token delivered and the
     * sequence decoding from the next step; or, when it failed, the prompt recomputed here (a PD fallback).
     */
    private void takeOver(EngineSequence s) {
        PdHandover.Parcel p = s.parcel;
        long t0 = System.nanoTime();
        String why = p.refused;
        boolean ok = false;
        if (why == null) {
            try {
                ok = handoverCodec.restoreAssembled(s.seq, 0, p.tokens, p.state);
                if (!ok) why = "llama.cpp refused the state";
            } catch (RuntimeException e) {
                why = "restore failed: " + e.getMessage();
                try {
                    ctx.removeSeq(s.seq, -1, -1);
                } catch (RuntimeException ignored) {
                    // the next request's own failure reports a broken context
                }
            }
        }
        if (ok) pd.used(p);
        pd.release(p);
        if (pd.viaStore() && p.lengths != null) {
            try {
                submitIo(() -> {
                    try {
                        pd.remove(p);
                    } catch (RuntimeException ignored) {
                        // left for the store's eviction
                    } finally {
                        inbox.add(new WriteDone(null, null, null));
                    }
                });
            } catch (RuntimeException ignored) {
                // left for the store's eviction
            }
        }
        long now = clock.getAsLong();
        s.events.handedOver(
                new dev.kvlab.harness.spi.Handover(
                        p.prefilledAt,
                        p.arrivedAt,
                        p.decodeAdmittedAt,
                        now,
                        p.bytes,
                        p.tokens,
                        p.transferNanos,
                        System.nanoTime() - t0,
                        ok),
                now);
        if (!ok) {
            totals.rejected("handover_"
                    + (why.contains("checksum")
                            ? "checksum"
                            : why.startsWith("transfer") || why.startsWith("get") || why.startsWith("the store")
                                    ? "transfer"
                                    : "other"));
            s.next = 0; // recomputed on this instance from the next step
            return;
        }
        s.next = s.promptTokens();
        s.pos = s.promptTokens();
        s.lastToken = p.firstToken;
        s.outputsDone = 1;
        s.events.firstToken(now);
        if (s.outputsDone >= s.outputTarget()) complete(s, now);
        else s.decoding = true;
    }

    private void complete(EngineSequence s, long now) {
        s.events.completed(now);
        writeBackAndRelease(s);
    }

    /** The request is done on this instance: its computed prompt blocks written back (remote tier), the sequence released. */
    private void writeBackAndRelease(EngineSequence s) {
        KvTiers.WriteBack w = null;
        try {
            w = tiers.completed(s);
        } catch (RuntimeException e) {
            totals.writeFailed("error after completion: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        if (w == null) {
            release(s);
            return;
        }
        detach(s);
        Events ev = s.events;
        EngineSequence held = spare.isEmpty() ? s : null;
        if (held == null) { // the write-back keeps the buffers; the sequence serves on with a spare set
            s.bufs = spare.poll();
            s.assign(null, null, null);
            free.add(s);
        }
        KvTiers.WriteBack job = w;
        submitIo(() -> {
            try {
                tiers.put(job);
            } catch (RuntimeException e) {
                totals.writeFailed("error after completion: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            inbox.add(new WriteDone(job.bufs(), held, ev));
        });
    }

    private void fail(EngineSequence s, RuntimeException e) {
        s.events.failed(e.getClass().getSimpleName() + ": " + e.getMessage(), clock.getAsLong());
        release(s);
    }

    /** The sequence is done with its request: free again (once its fetch is back, when one is out). */
    private void release(EngineSequence s) {
        detach(s);
        if (s.fetching) s.abandoned = true;
        else recycle(s);
    }

    /** Out of the steps, its cells dropped. */
    private void detach(EngineSequence s) {
        active.remove(s);
        try {
            ctx.removeSeq(s.seq, -1, -1);
        } catch (RuntimeException ignored) {
            // the context is reported broken by the next request's own failure
        }
    }

    /** Free for the next request; the request's work is over. */
    private void recycle(EngineSequence s) {
        Events ev = s.events;
        if (s.parcel != null) pd.done(s.parcel);
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
        if (io != null) {
            try {
                if (!thread.isAlive()) io.shutdown();
                io.awaitTermination(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (!thread.isAlive()) {
            tiers.close();
            ctx.close();
            if (primedArena != null) primedArena.close();
        }
    }
}
