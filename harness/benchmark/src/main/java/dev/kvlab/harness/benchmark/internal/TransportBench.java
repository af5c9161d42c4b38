package dev.kvlab.harness.benchmark.internal;

import dev.kvlab.harness.benchmark.api.TransportBenchResult;
import dev.kvlab.harness.benchmark.api.TransportBenchSpec;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TargetProcess;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransportConfig;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * A benchmark session: starts the target (its own JVM for every transport but {@code local}),
 * warms up (at least one sweep over the target segment, so every page exists in both processes), then runs
 * closed-loop initiator threads for the measured duration. Each thread records every batch's latency, from
 * its submission to its completion, in its own HdrHistogram; throughput is all bytes of batches completed in
 * the measured phase divided by the time from its start until the last of those batches completed.
 */
public final class TransportBench implements AutoCloseable {

    private final String transport;
    private final TransportConfig config;
    private final long segmentBytes;
    private final TransferEngine initiator;
    private final Target target;
    private final RemoteSegment remote;

    private TransportBench(
            String transport, TransportConfig config, long segmentBytes, TransferEngine initiator, Target target) {
        this.transport = transport;
        this.config = config;
        this.segmentBytes = segmentBytes;
        this.initiator = initiator;
        this.target = target;
        this.remote = initiator.openSegment(target.handle());
    }

    /**
     * Starts a target serving {@code segmentBytes} (in its own JVM for every transport but {@code local}) and an
     * initiator engine in this process, connected to it. Close it to stop both.
     */
    public static TransportBench open(
            Transports transports, String transport, TransportConfig config, long segmentBytes) {
        TransferEngine initiator = transports.create(transport, config);
        Target target = null;
        try {
            target = startTarget(transports, transport, config, segmentBytes);
            return new TransportBench(transport, config, segmentBytes, initiator, target);
        } catch (RuntimeException e) {
            if (target != null) target.close();
            initiator.close();
            throw e;
        }
    }

    /** Runs one spec against this session's target (same transport; its segment must fit the session's). */
    public static TransportBenchResult runOnce(Transports transports, TransportBenchSpec spec) throws Exception {
        try (TransportBench b = open(transports, spec.transport(), spec.config(), spec.segmentBytes())) {
            return b.run(spec);
        }
    }

    public TransportBenchResult run(TransportBenchSpec spec) throws Exception {
        if (!spec.transport().equals(transport))
            throw new IllegalArgumentException("this session benchmarks " + transport + ", not " + spec.transport());
        if (spec.segmentBytes() > segmentBytes)
            throw new IllegalArgumentException("the spec needs a larger target segment than this session has");
        int threads = spec.threads();
        Worker[] workers = new Worker[threads];
        long blocks = spec.segmentBytes() / spec.blockSize();
        for (int t = 0; t < threads; t++) {
            MemorySegment local = initiator.allocateBuffer(spec.localBytes());
            local.fill((byte) t); // touch every page before measuring
            workers[t] = new Worker(spec, initiator, remote, local, t * (blocks / threads), blocks);
        }
        long warmupStart = System.nanoTime();
        long warmupNanos = Math.clamp(spec.duration().toNanos() / 4, 300_000_000L, 2_000_000_000L);
        runPhase(workers, warmupNanos, (blocks + threads - 1) / threads, MAX_WARMUP_NANOS);
        double warmupSeconds = (System.nanoTime() - warmupStart) / 1e9;
        for (Worker w : workers) w.reset();
        long cpu0 = processCpuNanos();
        long targetCpu0 = target.cpuNanos();
        long start = runPhase(workers, spec.duration().toNanos(), 0, 0);
        double initiatorCpu = (processCpuNanos() - cpu0) / 1e9;
        double targetCpu = target.process() == null ? Double.NaN : (target.cpuNanos() - targetCpu0) / 1e9;
        long end = 0;
        Histogram all = new Histogram(3_600_000_000_000L, 3);
        long bytes = 0;
        long batches = 0;
        for (Worker w : workers) {
            end = Math.max(end, w.lastCompletion);
            all.add(w.latencies);
            bytes += w.bytes;
            batches += w.batches;
        }
        return new TransportBenchResult(
                spec,
                initiator.emulated(),
                initiator.copySemantics(),
                (end - start) / 1e9,
                warmupSeconds,
                bytes,
                batches,
                all.getValueAtPercentile(50) / 1e3,
                all.getValueAtPercentile(90) / 1e3,
                all.getValueAtPercentile(99) / 1e3,
                all.getValueAtPercentile(99.9) / 1e3,
                all.getMaxValue() / 1e3,
                all.getMean() / 1e3,
                Runtime.getRuntime().availableProcessors(),
                initiatorCpu,
                targetCpu);
    }

    @Override
    public void close() {
        try {
            target.close();
        } finally {
            initiator.close();
        }
    }

    /** The warm-up sweeps the whole target segment once, unless that takes longer than this (tiny blocks). */
    private static final long MAX_WARMUP_NANOS = 2_000_000_000L;

    /**
     * Runs every worker until {@code nanos} have passed and each did {@code minBlocks} (but no longer than
     * {@code capNanos} when that is > 0); returns the phase's start.
     */
    private static long runPhase(Worker[] workers, long nanos, long minBlocks, long capNanos) throws Exception {
        CyclicBarrier go = new CyclicBarrier(workers.length + 1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        long[] start = new long[1];
        CyclicBarrier started = new CyclicBarrier(workers.length + 1, () -> start[0] = System.nanoTime());
        for (Worker w : workers) {
            Thread t = Thread.ofPlatform().name("kvlab-bench-" + threads.size()).start(() -> {
                try {
                    go.await();
                    started.await();
                    w.run(
                            start[0] + nanos,
                            minBlocks,
                            capNanos > 0 ? start[0] + Math.max(nanos, capNanos) : Long.MAX_VALUE);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            threads.add(t);
        }
        go.await();
        started.await();
        for (Thread t : threads) t.join();
        Throwable f = failure.get();
        if (f instanceof Exception e) throw e;
        if (f instanceof Error e) throw e;
        return start[0];
    }

    private static final class Worker {
        final TransportBenchSpec spec;
        final TransferEngine engine;
        final RemoteSegment remote;
        final MemorySegment local;
        final long blocks;
        final TransferBatch batch;
        final Histogram latencies = new Histogram(3_600_000_000_000L, 3);
        long next;
        long bytes;
        long batches;
        long lastCompletion;

        Worker(
                TransportBenchSpec spec,
                TransferEngine engine,
                RemoteSegment remote,
                MemorySegment local,
                long firstBlock,
                long blocks) {
            this.spec = spec;
            this.engine = engine;
            this.remote = remote;
            this.local = local;
            this.next = firstBlock;
            this.blocks = blocks;
            this.batch = new TransferBatch(spec.batchSize());
        }

        void reset() {
            latencies.reset();
            bytes = 0;
            batches = 0;
            lastCompletion = 0;
        }

        void run(long until, long minBlocks, long cap) throws Exception {
            long localBlocks = local.byteSize() / spec.blockSize();
            long localNext = 0;
            long done = 0;
            long timeout = spec.config().timeout().toMillis() + 5_000;
            long now;
            while ((now = System.nanoTime()) < until || (done < minBlocks && now < cap)) {
                batch.clear();
                for (int i = 0; i < spec.batchSize(); i++) {
                    batch.add(
                            spec.op(),
                            local,
                            (localNext % localBlocks) * spec.blockSize(),
                            remote,
                            (next % blocks) * spec.blockSize(),
                            spec.blockSize());
                    next++;
                    localNext++;
                }
                long t0 = System.nanoTime();
                try {
                    engine.submit(batch).get(timeout, TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    throw new TransferException(
                            "a batch failed: " + e.getCause().getMessage(), e.getCause());
                } catch (TimeoutException e) {
                    throw new TransferException("a batch did not complete within " + timeout + " ms");
                }
                long t1 = System.nanoTime();
                if (!batch.allOk())
                    throw new TransferException("a batch completed with failed requests: " + batch.status(0));
                latencies.recordValue(t1 - t0);
                bytes += batch.totalBytes();
                batches++;
                done += spec.batchSize();
                lastCompletion = t1;
            }
        }
    }

    private static Target startTarget(
            Transports transports, String transport, TransportConfig config, long segmentBytes) {
        if (!"local".equals(transport)) {
            TargetProcess p = TargetProcess.start(transport, config, segmentBytes, Duration.ofSeconds(120));
            return new Target(p.handle(), p, null, null);
        }
        TransferEngine e = transports.create(transport, config);
        Segment s = e.registerSegment("bench-target", segmentBytes);
        s.memory().fill((byte) 0x5a);
        return new Target(s.handle(), null, e, s);
    }

    /** CPU time of this JVM (all threads), from the platform MXBean. */
    private static long processCpuNanos() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) return os.getProcessCpuTime();
        return 0;
    }

    private record Target(SegmentHandle handle, TargetProcess process, TransferEngine engine, Segment segment)
            implements AutoCloseable {
        long cpuNanos() {
            return process == null ? 0 : process.cpuTime().toNanos();
        }

        @Override
        public void close() {
            if (process != null) process.close();
            if (segment != null) segment.close();
            if (engine != null) engine.close();
        }
    }
}
