package dev.kvlab.harness.internal.live;

import dev.kvlab.harness.api.config.Pd;
import dev.kvlab.harness.internal.CellPlan;
import dev.kvlab.harness.internal.engine.Instance;
import dev.kvlab.harness.internal.engine.RemoteTier;
import dev.kvlab.harness.internal.engine.Seq;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.transport.api.TransportConfig;
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
import java.util.function.IntConsumer;

/**
 * The shared store on the live clock: real objects of the model's real KV block size, written with the content
 * their key must hold ({@link KeyedPayload}) and read back over the real transport by I/O threads. Every fetched
 * block is verified (the client's CRC32C and content check, then this tier's own content check) before it counts;
 * the first block that fails ends the usable prefix, the rest are recomputed. Results are handed back to the loop
 * thread. What data moves is real; only GPU time is modelled.
 */
public final class LiveStore implements RemoteTier, AutoCloseable {

    /** Blocks per store batch call (bounds the buffers one I/O thread holds). */
    static final int CHUNK = 4;

    private final CellPlan plan;
    private final LiveLoop loop;
    private final AuditedBackend backend;
    private final ExecutorService io;
    /** Write-backs run in the background, never in front of a lookup or a fetch. */
    private final ExecutorService background;
    private final ArrayBlockingQueue<MemorySegment> buffers;
    private final long blockBytes;
    private final ReplicateConfig replicate;
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicLong queuedWriteBlocks = new AtomicLong(), dropped = new AtomicLong();
    private final long writeQueueBlocks;
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final AtomicLong written = new AtomicLong(), writtenBytes = new AtomicLong(), skipped = new AtomicLong(),
            noSpace = new AtomicLong(), writeFailed = new AtomicLong(), handoffBytes = new AtomicLong(), verified = new AtomicLong(),
            rejected = new AtomicLong(), wrongHitsUsed = new AtomicLong(), unaudited = new AtomicLong(), ioNanos = new AtomicLong(), putBytes = new AtomicLong();

    private final PdLink pd;
    /** Why fetched blocks were not used: store status (MISS, LEASE_EXPIRED, CHECKSUM_MISMATCH, …) or BAD_CONTENT. */
    private final java.util.concurrent.ConcurrentSkipListMap<String, AtomicLong> rejections = new java.util.concurrent.ConcurrentSkipListMap<>();

    public LiveStore(CellPlan plan, LiveLoop loop, AuditedBackend backend) {
        this.plan = plan;
        this.loop = loop;
        this.backend = backend;
        this.blockBytes = plan.blockBytes();
        int threads = plan.config().live().ioThreads();
        this.io = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "kvlab-live-io");
            t.setDaemon(true);
            return t;
        });
        this.writeQueueBlocks = plan.config().store().writeBackQueueBlocks();
        int writers = plan.config().store().writeBackConcurrency();
        this.background = Executors.newFixedThreadPool(writers, r -> {
            Thread t = new Thread(r, "kvlab-live-writeback");
            t.setDaemon(true);
            return t;
        });
        int n = (threads + writers) * CHUNK;
        this.buffers = new ArrayBlockingQueue<>(n);
        for (int i = 0; i < n; i++) buffers.add(backend.allocateBuffer(blockBytes));
        this.replicate = ReplicateConfig.replicas(plan.config().store().replicas());
        this.pd = plan.config().pd() == Pd.DISAGGREGATED
                ? new PdLink(plan.transportName(), TransportConfig.defaults().withLink(plan.link()), threads, blockBytes) : null;
    }

    /** True when no store operation is in flight. */
    public boolean idle() {
        return pending.get() == 0;
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

    /** Wall time I/O threads spent in store calls. */
    /** Blocks used that the audit could not check (written by someone else, e.g. an external cluster filled earlier). */
    public long unauditedBlocks() {
        return unaudited.get();
    }

    public long ioNanos() {
        return ioNanos.get();
    }

    private void submit(Runnable task) {
        submit(io, task);
    }

    private void submit(ExecutorService on, Runnable task) {
        pending.incrementAndGet();
        on.execute(() -> {
            long t0 = System.nanoTime();
            try {
                task.run();
            } finally {
                ioNanos.addAndGet(System.nanoTime() - t0);
            }
        });
    }

    private void finish(Runnable onLoop) {
        loop.post(() -> {
            try {
                onLoop.run();
            } finally {
                pending.decrementAndGet();
            }
        });
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
            try {
                boolean[] there = backend.batchExists(keys);
                while (n < there.length && there[n]) n++;
            } catch (RuntimeException e) {
                error(e);
                n = 0;
            }
            int found = n;
            finish(() -> done.accept(found));
        });
    }

    @Override
    public void fetch(Seq s, int from, int count, Runnable done) {
        List<String> keys = keys(s, from, from + count);
        submit(() -> {
            int ok = 0, wrong = 0, unknown = 0;
            long bytes = 0;
            boolean broken = false;
            try {
                for (int c = 0; c < count && !broken; c += CHUNK) {
                    int n = Math.min(CHUNK, count - c);
                    List<MemorySegment> bufs = take(n);
                    try {
                        List<GetResult> rs = backend.batchGetInto(keys.subList(c, c + n), bufs);
                        for (int i = 0; i < n; i++) {
                            GetResult g = rs.get(i);
                            if (g.isHit()) bytes += g.length();
                            if (broken) continue;
                            String key = keys.get(c + i);
                            if (g.isHit() && g.length() == blockBytes && KeyedPayload.matches(key, bufs.get(i), 0, blockBytes)) {
                                ok++;
                            } else {
                                broken = true;
                                String why = !g.isHit() ? g.status().name() : g.length() != blockBytes ? "BAD_LENGTH" : "BAD_CONTENT";
                                rejections.computeIfAbsent(why, k -> new AtomicLong()).addAndGet(count - ok);
                            }
                        }
                        // the independent audit: every block about to be used against the digest of what was written under its key
                        int usedHere = Math.max(0, Math.min(n, ok - c));
                        for (int i = 0; i < usedHere; i++) {
                            switch (backend.check(keys.get(c + i), bufs.get(i), blockBytes)) {
                                case MISMATCH -> wrong++;
                                case UNKNOWN -> unknown++;
                                case MATCH -> { }
                            }
                        }
                    } finally {
                        buffers.addAll(bufs);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                error(e);
            }
            int used = ok, bad = wrong;
            long moved = bytes;
            verified.addAndGet(used);
            rejected.addAndGet(count - used);
            wrongHitsUsed.addAndGet(bad);
            unaudited.addAndGet(unknown);
            finish(() -> {
                s.fetchedBlocks = used;
                s.fallbackBlocks = count - used;
                s.fetchedBytes = moved;
                done.run();
            });
        });
    }

    @Override
    public void writeBack(Seq s, int from, int to) {
        List<String> keys = keys(s, from, to);
        int n = keys.size();
        if (queuedWriteBlocks.get() + n > writeQueueBlocks) {
            dropped.addAndGet(n);
            return;
        }
        queuedWriteBlocks.addAndGet(n);
        submit(background, () -> {
            queuedWriteBlocks.addAndGet(-n);
            try {
                put(keys, true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                error(e);
                writeFailed.addAndGet(keys.size());
            }
            finish(() -> {});
        });
    }

    private void put(List<String> keys, boolean count) throws InterruptedException {
        for (int c = 0; c < keys.size(); c += CHUNK) {
            int n = Math.min(CHUNK, keys.size() - c);
            List<String> part = keys.subList(c, c + n);
            List<MemorySegment> bufs = take(n);
            try {
                for (int i = 0; i < n; i++) KeyedPayload.fill(part.get(i), bufs.get(i), 0, blockBytes);
                List<MemorySegment> views = new ArrayList<>(n);
                for (MemorySegment b : bufs) views.add(b.asSlice(0, blockBytes));
                List<PutStatus> st = backend.batchPut(part, views, replicate);
                for (PutStatus p : st) {
                    if (p == PutStatus.OK) {
                        putBytes.addAndGet(blockBytes);
                        if (count) {
                            written.incrementAndGet();
                            writtenBytes.addAndGet(blockBytes);
                        }
                    } else if (!count) {
                        continue;
                    } else if (p == PutStatus.EXISTS || p == PutStatus.IN_PROGRESS) {
                        skipped.incrementAndGet();
                    } else if (p == PutStatus.NO_SPACE) {
                        noSpace.incrementAndGet();
                    } else {
                        writeFailed.incrementAndGet();
                    }
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
        submit(() -> {
            long moved = 0;
            try {
                moved = pd.transfer(keys);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                error(e);
            }
            handoffBytes.addAndGet(moved);
            finish(done);
        });
    }

    @Override
    public double expectedFetchSeconds(Instance instance, int blocks) {
        return plan.transportModel().batchSeconds(blocks * plan.blockBytesAllRanks(), blocks, instance.activeTransfers() + 1);
    }

    @Override
    public RemoteStats stats() {
        return new RemoteStats(written.get(), writtenBytes.get(), skipped.get(), noSpace.get(), writeFailed.get(), dropped.get(), handoffBytes.get(),
                verified.get(), rejected.get(), wrongHitsUsed.get());
    }

    @Override
    public String describe() {
        return backend.name() + ": " + backend.copySemantics() + (pd == null ? "" : "; " + pd.describe());
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
