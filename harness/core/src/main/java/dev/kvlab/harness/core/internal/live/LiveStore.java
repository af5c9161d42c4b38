package dev.kvlab.harness.core.internal.live;

import dev.kvlab.harness.api.config.Pd;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.internal.engine.Instance;
import dev.kvlab.harness.core.internal.engine.RemoteCounters;
import dev.kvlab.harness.core.internal.engine.RemoteTier;
import dev.kvlab.harness.core.internal.engine.Seq;
import dev.kvlab.harness.core.internal.engine.WriteBackLanes;
import dev.kvlab.harness.spi.AuditedStore;
import dev.kvlab.harness.spi.LinkProbe;
import dev.kvlab.harness.spi.LiveClock;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.api.TransportModel;
import dev.kvlab.workloads.api.BlockKeys;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * The shared store on the live clock: real objects of the model's real KV block size, written with the content
 * their key must hold ({@link KeyedPayload}) and read back over the real transport by I/O threads. Every fetched
 * block is verified (the client's CRC32C against the master's, then this tier's check of the content against the
 * key) before it counts; the first block that fails ends the usable prefix, the rest are recomputed. Results are
 * handed back to the loop thread. The independent audit ({@link AuditedBackend#check}) of a fetch's last chunk runs
 * after that, off the measured path; an earlier chunk's runs before the next chunk reuses its buffers, so on the
 * path (an audit thread of its own bought nothing measurable on 2 cores). Write-backs go through the per-instance {@link WriteBackLanes}.
 * What data moves is real; only GPU time is modelled. The CPU of its threads is counted ({@link HarnessCpu}): their
 * tasks, and within them the store's calls and the byte work, which are not the harness's.
 */
public final class LiveStore implements RemoteTier, AutoCloseable {

    /** Blocks per store batch call (bounds the buffers one I/O thread holds). */
    static final int CHUNK = 4;
    /**
     * Most blocks of the link probe's batch fetch: three chunks, so that it pays the audits between chunks a fetch
     * pays; fewer (not under one chunk) where they would take more than an eighth of the store.
     */
    static final int PROBE_BATCH = 3 * CHUNK;

    private final CellPlan plan;
    private final LiveClock loop;
    private final AuditedStore backend;
    private final ExecutorService io;
    /** Write-backs run in the background, never in front of a lookup or a fetch. */
    private final ExecutorService background;

    private final ArrayBlockingQueue<MemorySegment> buffers;
    private final long blockBytes;
    private final ReplicateConfig replicate;
    /** Store operations (and audits) in flight. */
    private final AtomicInteger pending = new AtomicInteger();

    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final RemoteCounters counters = new RemoteCounters();
    private final WriteBackLanes lanes;
    private final AtomicLong unaudited = new AtomicLong(), ioNanos = new AtomicLong();
    /** The CPU of this tier's threads: their tasks, and the store calls and byte work within them. */
    private final HarnessCpu cpu = new HarnessCpu();

    private volatile TransportModel link;

    private final PdLink pd;
    /** Why fetched blocks were not used: store status (MISS, LEASE_EXPIRED, CHECKSUM_MISMATCH, …) or BAD_CONTENT. */
    private final java.util.concurrent.ConcurrentSkipListMap<String, AtomicLong> rejections =
            new java.util.concurrent.ConcurrentSkipListMap<>();

    public LiveStore(CellPlan plan, LiveClock loop, AuditedStore backend) {
        this.plan = plan;
        this.loop = loop;
        this.backend = backend;
        this.blockBytes = plan.blockBytes();
        int threads = plan.config().live().ioThreads();
        this.io = Executors.newFixedThreadPool(threads, cpu.threads("kvlab-live-io"));
        var st = plan.config().store();
        int writers = plan.config().cluster().instances()
                * st.writeBackConcurrency(); // each instance's lane has its own writers
        this.background = Executors.newFixedThreadPool(writers, cpu.threads("kvlab-live-writeback"));
        this.lanes = new WriteBackLanes(
                plan.config().cluster().instances(),
                st.writeBackConcurrency(),
                st.writeBackQueueBlocks(),
                counters,
                this::startWrite);
        this.link = plan.transportModel();
        int n = (threads + writers) * CHUNK;
        this.buffers = new ArrayBlockingQueue<>(n);
        for (int i = 0; i < n; i++) buffers.add(backend.allocateBuffer(blockBytes));
        this.replicate = ReplicateConfig.replicas(plan.config().store().replicas());
        this.pd = plan.config().pd() == Pd.DISAGGREGATED
                ? new PdLink(
                        plan.transportName(), TransportConfig.defaults().withLink(plan.link()), threads, blockBytes)
                : null;
    }

    /** True when no store operation is in flight. */
    public boolean idle() {
        return pending.get() == 0 && lanes.idle();
    }

    /** The first I/O error, or null. */
    public String firstError() {
        return firstError.get();
    }

    /** Blocks not used, by the reason the first of their fetch was refused (sorted by reason). */
    public java.util.Map<String, Long> rejections() {
        java.util.Map<String, Long> out = new java.util.LinkedHashMap<>();
        rejections.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    /** Blocks used that the audit could not check (written by someone else, e.g. an external cluster filled earlier). */
    public long unauditedBlocks() {
        return unaudited.get();
    }

    /** Wall time I/O threads spent on the tier's tasks. */
    public long ioNanos() {
        return ioNanos.get();
    }

    /** The CPU accounting of this tier's threads. */
    HarnessCpu cpu() {
        return cpu;
    }

    private void submit(Runnable task) {
        submit(io, task);
    }

    /** {@code task} in flight until its result has been run on the loop ({@link #finish}). */
    private void submit(ExecutorService on, Runnable task) {
        pending.incrementAndGet();
        execute(on, task);
    }

    /** Runs {@code task} on a thread of {@code on}, its wall and CPU time counted. */
    private void execute(ExecutorService on, Runnable task) {
        Runnable counted = cpu.task(task);
        long c0 = cpu.now();
        on.execute(() -> {
            long t0 = System.nanoTime();
            try {
                counted.run();
            } finally {
                ioNanos.addAndGet(System.nanoTime() - t0);
            }
        });
        cpu.handoff(c0);
    }

    private void finish(Runnable onLoop) {
        long c0 = cpu.now();
        loop.post(() -> {
            try {
                onLoop.run();
            } finally {
                pending.decrementAndGet();
            }
        });
        cpu.handoff(c0);
    }

    private void error(Throwable e) {
        firstError.compareAndSet(null, e.getClass().getSimpleName() + ": " + e.getMessage());
    }

    private static List<String> keys(Seq s, int from, int to) {
        List<String> out = new ArrayList<>(to - from);
        long[] k = s.request.blockKeys();
        for (int i = from; i < to; i++) out.add(BlockKeys.storeKey(k[i]));
        return out;
    }

    private List<MemorySegment> take(int n) throws InterruptedException {
        List<MemorySegment> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(buffers.take());
        return out;
    }

    @Override
    public void lookup(Seq s, int from, int max, IntConsumer done) {
        List<String> keys = keys(s, from, max);
        submit(() -> {
            int n = 0;
            long c = cpu.now();
            try {
                boolean[] there = backend.batchExists(keys);
                while (n < there.length && there[n]) n++;
            } catch (RuntimeException e) {
                error(e);
                n = 0;
            } finally {
                cpu.storeAndBytes(c);
            }
            int found = n;
            finish(() -> done.accept(found));
        });
    }

    @Override
    public void fetch(Seq s, int from, int count, Consumer<Fetched> done) {
        List<String> keys = keys(s, from, from + count);
        Instance in = s.instance();
        in.activeTransfersInc();
        pending.incrementAndGet();
        execute(io, () -> {
            Chunked r = new Chunked();
            try {
                getChunks(keys, r, false);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                error(e);
            }
            int used = r.ok;
            long moved = r.bytes;
            long c0 = cpu.now();
            loop.post(() -> {
                in.activeTransfersDec();
                done.accept(new Fetched(used, count - used, moved));
            });
            cpu.handoff(c0);
            // off the measured path: the independent audit of the last chunk's hits, then the buffers go back
            long wrong = r.wrongEarly;
            try {
                wrong += r.finish();
            } catch (RuntimeException e) {
                error(e);
            }
            counters.fetched(used, count - used, wrong);
            pending.decrementAndGet();
        });
    }

    /** What {@link #getChunks} got so far: the verified prefix, and the last chunk (its buffers still held). */
    private final class Chunked {
        int ok;
        long bytes;
        long wrongEarly;
        List<MemorySegment> held;
        List<GetResult> got;
        int heldFrom;
        List<String> keys;

        /** Audits the last chunk and returns its buffers; the wrong blocks among those used. */
        long finish() {
            try {
                return held == null ? 0 : audit(keys, heldFrom, held, got, ok);
            } finally {
                if (held != null) buffers.addAll(held);
                held = null;
            }
        }
    }

    /**
     * The data part of a fetch, also what the link probe times: {@code keys} chunk by chunk ({@code CHUNK} blocks),
     * each chunk's get and content check; a chunk's audit runs before the next chunk takes buffers (so the buffers
     * stay bounded), the last chunk's is left to {@link Chunked#finish} (off the measured path). Stops at the
     * first block that is missing or wrong (the link probe: missing), and counts its rejection (not the probe).
     */
    private void getChunks(List<String> keys, Chunked r, boolean probe) throws InterruptedException {
        r.keys = keys;
        boolean broken = false;
        for (int c = 0; c < keys.size() && !broken; c += CHUNK) {
            if (r.held != null) { // an earlier chunk: audit it before the next one needs the buffers
                r.wrongEarly += audit(keys, r.heldFrom, r.held, r.got, r.ok);
                buffers.addAll(r.held);
                r.held = null;
            }
            int n = Math.min(CHUNK, keys.size() - c);
            r.held = take(n);
            r.heldFrom = c;
            long cpu0 = cpu.now(); // the get and the content check: the store's cost and the bytes'
            try {
                r.got = backend.batchGetInto(keys.subList(c, c + n), r.held);
                for (int i = 0; i < n; i++) {
                    GetResult g = r.got.get(i);
                    if (g.isHit()) r.bytes += g.length();
                    if (broken) continue;
                    boolean verified = g.isHit()
                            && g.length() == blockBytes
                            && KeyedPayload.matches(keys.get(c + i), r.held.get(i), 0, blockBytes);
                    if (verified || (probe && g.isHit())) { // the probe times the path; a broken backend's verdict does
                        // not matter there
                        r.ok++;
                    } else {
                        broken = true;
                        if (probe) continue;
                        String why = !g.isHit()
                                ? g.status().name()
                                : g.length() != blockBytes ? "BAD_LENGTH" : "BAD_CONTENT";
                        rejections.computeIfAbsent(why, k -> new AtomicLong()).addAndGet(keys.size() - r.ok);
                    }
                }
            } finally {
                cpu.storeAndBytes(cpu0);
            }
        }
    }

    /**
     * Audits the hits of one chunk ({@code keys[from, from + bufs.size())}) against what was written; returns how
     * many of the blocks the model uses (the first {@code used} of the fetch) were wrong.
     */
    private long audit(List<String> keys, int from, List<MemorySegment> bufs, List<GetResult> got, int used) {
        long c = cpu.now();
        try {
            return auditChunk(keys, from, bufs, got, used);
        } finally {
            cpu.storeAndBytes(c);
        }
    }

    private long auditChunk(List<String> keys, int from, List<MemorySegment> bufs, List<GetResult> got, int used) {
        long wrongUsed = 0;
        for (int i = 0; got != null && i < bufs.size() && i < got.size(); i++) {
            GetResult g = got.get(i);
            if (!g.isHit()) continue;
            boolean isUsed = from + i < used;
            switch (backend.check(keys.get(from + i), bufs.get(i), g.length())) {
                case MISMATCH -> {
                    if (isUsed) wrongUsed++;
                }
                case UNKNOWN -> {
                    if (isUsed) unaudited.incrementAndGet();
                }
                case MATCH -> {}
            }
        }
        return wrongUsed;
    }

    @Override
    public void writeBack(Seq s, int from, int to) {
        lanes.offer(s, from, to);
    }

    /** One write-back of the lanes: on a background writer, its end posted back to the loop. */
    private boolean startWrite(Seq s, int from, int to, Instance in, Runnable done) {
        List<String> keys = keys(s, from, to);
        in.activeTransfersInc();
        submit(background, () -> {
            try {
                put(keys, true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                error(e);
                counters.writeFailed(keys.size());
            }
            finish(() -> {
                in.activeTransfersDec();
                done.run();
            });
        });
        return true;
    }

    private void put(List<String> keys, boolean count) throws InterruptedException {
        for (int c = 0; c < keys.size(); c += CHUNK) {
            int n = Math.min(CHUNK, keys.size() - c);
            List<String> part = keys.subList(c, c + n);
            List<MemorySegment> bufs = take(n);
            try {
                long c0 = cpu.now(); // the payloads, their audit digest and the put: bytes and the store's cost
                List<PutStatus> st;
                try {
                    for (int i = 0; i < n; i++) KeyedPayload.fill(part.get(i), bufs.get(i), 0, blockBytes);
                    List<MemorySegment> views = new ArrayList<>(n);
                    for (MemorySegment b : bufs) views.add(b.asSlice(0, blockBytes));
                    st = backend.batchPut(part, views, replicate);
                } finally {
                    cpu.storeAndBytes(c0);
                }
                for (PutStatus p : st) {
                    if (!count) continue;
                    if (p == PutStatus.OK) counters.written(blockBytes);
                    else if (p == PutStatus.EXISTS || p == PutStatus.IN_PROGRESS) counters.skipped();
                    else if (p == PutStatus.NO_SPACE) counters.noSpace();
                    else counters.writeFailed(1);
                }
            } finally {
                buffers.addAll(bufs);
            }
        }
    }

    @Override
    public void handoff(Seq s, Runnable done) {
        if (pd == null) throw new IllegalStateException("no PD link: the run is not disaggregated");
        int blocks = s.promptBlocks();
        List<String> keys = new ArrayList<>(blocks);
        for (int i = 0; i < blocks; i++) keys.add("pd/r" + s.id() + "/b" + i);
        Instance in = s.instance();
        in.activeTransfersInc();
        submit(() -> {
            long moved = 0;
            long c = cpu.now();
            try {
                moved = pd.transfer(keys);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                error(e);
            } finally {
                cpu.storeAndBytes(c);
            }
            counters.handoff(moved);
            finish(() -> {
                in.activeTransfersDec();
                done.run();
            });
        });
    }

    @Override
    public TransportModel linkModel() {
        return link;
    }

    /** Sets the model the auto policy decides on (the link this cell measured, or the run's transport profile). */
    public void linkModel(TransportModel m) {
        this.link = m;
    }

    @Override
    public long blockBytesAllRanks() {
        return plan.blockBytesAllRanks();
    }

    @Override
    public RemoteStats stats() {
        return counters.snapshot();
    }

    @Override
    public String describe() {
        return backend.name() + ": " + backend.copySemantics() + (pd == null ? "" : "; " + pd.describe());
    }

    /**
     * Measures this cell's fetch path before anything else runs on it (caller's thread, the loop not yet running):
     * up to {@code PROBE_BATCH} probe objects of the block size are written, then each round times one exists call,
     * fetches of 1, 4, 8 and all of them on an I/O thread, the way a fetch takes them (chunks, content
     * checks, the audits between chunks), after as many unmeasured rounds (more, up to 0.3 s, while the JIT is still
     * compiling); the probe objects are removed again. The rounds come in groups of {@code rounds}: the probe ends
     * when a group's fit ({@link LinkProbe#fit}) agrees with the previous group's ({@link LinkProbe#agrees}), at most
     * {@value #PROBE_GROUPS} groups; the figures are the fit of the last two groups' rounds together. A machine that
     * is still busy (the JIT compiling the cell's code on the other core, the first cell of a JVM) gives a slower
     * group first, and one group alone was then off by up to 1.5x in latency and bandwidth. Last, {@value
     * #WAKE_ROUNDS} pairs of one-block fetches, each pair after the path idled {@value LinkProbe#WAKE_IDLE_MS} ms:
     * the wake ({@link LinkProbe#wakeSeconds}) that a cell's fetch after an idle spell pays and these back-to-back
     * rounds do not (a cell's fetches were 10% slower than the probe's at 12 requests per second, up to 45% at 3).
     */
    public LinkProbe probe(int rounds) throws InterruptedException {
        return probe(rounds, true);
    }

    /**
     * {@link #probe(int)}, its wake measured or not ({@code wake} false: the probe's figures without it, NaN; for a
     * target whose twin does not charge it).
     */
    public LinkProbe probe(int rounds, boolean wake) throws InterruptedException {
        String tag = "kvlab-probe/" + Long.toHexString(System.nanoTime()) + "/";
        int batchBlocks = (int) Math.max(CHUNK, Math.min(PROBE_BATCH, plan.storeCapacity() / (8 * blockBytes)));
        List<String> keys = new ArrayList<>(batchBlocks);
        for (int i = 0; i < batchBlocks; i++) keys.add(tag + i);
        put(keys, false);
        int[] sizes = java.util.stream.IntStream.of(1, CHUNK, 2 * CHUNK, batchBlocks)
                .filter(n -> n <= batchBlocks)
                .distinct()
                .toArray();
        int[] reputs = {0};
        long[][] prev = null, cur = null;
        int groups = 0;
        long[][] wakePairs = new long[2][WAKE_ROUNDS];
        try {
            // unmeasured rounds first: the JIT compiles the path (the cell's own warm-up comes later)
            long warm = System.nanoTime();
            for (int r = 0; r < 3 * rounds && (r < rounds || System.nanoTime() - warm < 300_000_000L); r++) {
                timed(() -> backend.batchExists(keys.subList(0, 1)));
                probeRound(keys, keys, reputs);
            }
            while (groups < PROBE_GROUPS) {
                long[][] g = new long[1 + sizes.length][rounds];
                for (int r = 0; r < rounds; r++) {
                    g[0][r] = timed(() -> backend.batchExists(keys.subList(0, 1)));
                    for (int i = 0; i < sizes.length; i++)
                        g[1 + i][r] = probeRound(keys, keys.subList(0, sizes[i]), reputs);
                }
                groups++;
                prev = cur;
                cur = g;
                if (prev != null
                        && LinkProbe.fit(prev, sizes, blockBytes, rounds, 0)
                                .agrees(LinkProbe.fit(cur, sizes, blockBytes, rounds, 0), batchBlocks, blockBytes))
                    break;
            }
            // the wake: a one-block fetch after the path idled, and one right behind it, in pairs
            for (int r = 0; wake && r < WAKE_ROUNDS; r++) {
                long until = System.nanoTime() + LinkProbe.WAKE_IDLE_MS * 1_000_000L;
                for (long left; (left = until - System.nanoTime()) > 0; ) LockSupport.parkNanos(left);
                wakePairs[0][r] = probeRound(keys, keys.subList(0, 1), reputs);
                wakePairs[1][r] = probeRound(keys, keys.subList(0, 1), reputs);
            }
        } finally {
            for (String k : keys) {
                try {
                    backend.remove(k);
                } catch (RuntimeException e) {
                    error(e);
                }
            }
        }
        long[][] both = cur;
        if (prev != null) {
            both = new long[cur.length][];
            for (int i = 0; i < cur.length; i++) both[i] = concat(prev[i], cur[i]);
        }
        LinkProbe fit = LinkProbe.fit(both, sizes, blockBytes, rounds * groups, reputs[0]);
        return wake ? fit.withWake(wakePairs[0], wakePairs[1]) : fit;
    }

    /** Pairs of the wake measurement ({@link LinkProbe#wakeSeconds}): idle, then a one-block fetch twice. */
    static final int WAKE_ROUNDS = 12;

    /** Most groups of probe rounds (the probe stops earlier once two agree). */
    static final int PROBE_GROUPS = 4;

    private static long[] concat(long[] a, long[] b) {
        long[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    /** Probe rounds may re-put their objects this often in all (a put lost or an object evicted under load). */
    static final int PROBE_REPUTS = 3;

    /**
     * One timed get of {@code keys} (of the probe's {@code all}); a round whose objects did not all come back is not
     * timed: the objects are put again and the round repeated, up to {@link #PROBE_REPUTS} times per probe.
     */
    private long probeRound(List<String> all, List<String> keys, int[] reputs) throws InterruptedException {
        while (true) {
            String[] miss = new String[1];
            long t = timed(() -> miss[0] = probeGet(keys));
            if (miss[0] == null) return t;
            if (reputs[0]++ >= PROBE_REPUTS)
                throw new IllegalStateException(
                        "link probe: " + miss[0] + " after putting the probe objects again " + PROBE_REPUTS + " times");
            put(all, false);
        }
    }

    /**
     * Gets {@code keys} the way a fetch does ({@link #getChunks}: chunks, content checks, the audits between chunks
     * on the path, the last one off it, untimed); null when all came back, else what did not.
     */
    private String probeGet(List<String> keys) {
        Chunked r = new Chunked();
        try {
            getChunks(keys, r, true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } finally {
            if (r.held != null) buffers.addAll(r.held); // the last chunk's audit is not part of a fetch's time
        }
        return r.ok == keys.size() ? null : "the probe object " + keys.get(r.ok) + " did not come back";
    }

    /** Wall time of {@code r} run on an I/O thread, hand-offs included (as a fetch takes them). */
    private long timed(Runnable r) throws InterruptedException {
        long t0 = System.nanoTime();
        var f = java.util.concurrent.CompletableFuture.runAsync(r, io);
        try {
            f.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        }
        return System.nanoTime() - t0;
    }

    /** Waits for in-flight I/O and stops the I/O threads (the backend is closed by its owner). */
    @Override
    public void close() {
        try {
            closeExecutors();
        } finally {
            if (pd != null) pd.close();
        }
    }

    private void closeExecutors() {
        for (ExecutorService e : new ExecutorService[] {io, background}) {
            e.shutdown();
            try {
                if (!e.awaitTermination(30, TimeUnit.SECONDS)) e.shutdownNow();
            } catch (InterruptedException x) {
                e.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }
}
