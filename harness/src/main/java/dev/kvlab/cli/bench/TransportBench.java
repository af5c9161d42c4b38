package dev.kvlab.cli.bench;

import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TargetProcess;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.api.Transports;
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
 * Runs a {@link TransportBenchSpec}: starts the target (its own JVM for every transport but {@code local}),
 * warms up (at least one sweep over the target segment, so every page exists in both processes), then runs
 * closed-loop initiator threads for the measured duration. Each thread records every batch's latency, from
 * its submission to its completion, in its own HdrHistogram; throughput is all bytes of batches completed in
 * the measured phase divided by the time from its start until the last of those batches completed.
 */
public final class TransportBench {

    private final TransportBenchSpec spec;
    private final Transports transports;

    public TransportBench(TransportBenchSpec spec, Transports transports) {
        this.spec = spec;
        this.transports = transports;
    }

    public TransportBenchResult run() throws Exception {
        TransportConfig config = spec.config();
        try (TransferEngine initiator = transports.create(spec.transport(), config);
             Target target = startTarget(config)) {
            RemoteSegment remote = initiator.openSegment(target.handle());
            int threads = spec.threads();
            Worker[] workers = new Worker[threads];
            long blocks = spec.segmentBytes() / spec.blockSize();
            for (int t = 0; t < threads; t++) {
                MemorySegment local = initiator.allocateBuffer(spec.localBytes());
                local.fill((byte) t); // touch every page before measuring
                workers[t] = new Worker(initiator, remote, local, t * (blocks / threads), blocks);
            }
            long warmupStart = System.nanoTime();
            long warmupNanos = Math.clamp(spec.duration().toNanos() / 4, 300_000_000L, 2_000_000_000L);
            runPhase(workers, warmupNanos, (blocks + threads - 1) / threads);
            double warmupSeconds = (System.nanoTime() - warmupStart) / 1e9;
            for (Worker w : workers) w.reset();
            long start = runPhase(workers, spec.duration().toNanos(), 0);
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
            return new TransportBenchResult(spec, initiator.emulated(), initiator.copySemantics(), (end - start) / 1e9, warmupSeconds,
                    bytes, batches,
                    all.getValueAtPercentile(50) / 1e3, all.getValueAtPercentile(90) / 1e3, all.getValueAtPercentile(99) / 1e3,
                    all.getValueAtPercentile(99.9) / 1e3, all.getMaxValue() / 1e3, all.getMean() / 1e3,
                    Runtime.getRuntime().availableProcessors());
        }
    }

    /** Runs every worker until {@code nanos} have passed and each did {@code minBlocks}; returns the phase's start. */
    private long runPhase(Worker[] workers, long nanos, long minBlocks) throws Exception {
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
                    w.run(start[0] + nanos, minBlocks);
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

    private final class Worker {
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

        Worker(TransferEngine engine, RemoteSegment remote, MemorySegment local, long firstBlock, long blocks) {
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

        void run(long until, long minBlocks) throws Exception {
            long localBlocks = local.byteSize() / spec.blockSize();
            long localNext = 0;
            long done = 0;
            long timeout = spec.config().timeout().toMillis() + 5_000;
            while (System.nanoTime() < until || done < minBlocks) {
                batch.clear();
                for (int i = 0; i < spec.batchSize(); i++) {
                    batch.add(spec.op(), local, (localNext % localBlocks) * spec.blockSize(), remote, (next % blocks) * spec.blockSize(), spec.blockSize());
                    next++;
                    localNext++;
                }
                long t0 = System.nanoTime();
                try {
                    engine.submit(batch).get(timeout, TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    throw new TransferException("a batch failed: " + e.getCause().getMessage(), e.getCause());
                } catch (TimeoutException e) {
                    throw new TransferException("a batch did not complete within " + timeout + " ms");
                }
                long t1 = System.nanoTime();
                if (!batch.allOk()) throw new TransferException("a batch completed with failed requests: " + batch.status(0));
                latencies.recordValue(t1 - t0);
                bytes += batch.totalBytes();
                batches++;
                done += spec.batchSize();
                lastCompletion = t1;
            }
        }
    }

    private Target startTarget(TransportConfig config) {
        if (spec.separateTarget()) {
            TargetProcess p = TargetProcess.start(spec.transport(), config, spec.segmentBytes(), Duration.ofSeconds(120));
            return new Target(p.handle(), p, null, null);
        }
        TransferEngine e = transports.create(spec.transport(), config);
        Segment s = e.registerSegment("bench-target", spec.segmentBytes());
        s.memory().fill((byte) 0x5a);
        return new Target(s.handle(), null, e, s);
    }

    private record Target(SegmentHandle handle, TargetProcess process, TransferEngine engine, Segment segment) implements AutoCloseable {
        @Override
        public void close() {
            if (process != null) process.close();
            if (segment != null) segment.close();
            if (engine != null) engine.close();
        }
    }
}
