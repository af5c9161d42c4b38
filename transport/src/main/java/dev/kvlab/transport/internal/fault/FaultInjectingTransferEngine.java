package dev.kvlab.transport.internal.fault;

import dev.kvlab.transport.api.FaultableEngine;
import dev.kvlab.transport.api.LinkFault;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransferStatus;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A decorator around any {@link TransferEngine} that injects link faults ({@link LinkFault}: added latency,
 * lost batches) into the batches submitted through it; segments, buffers and opening pass straight through.
 * The fault can be switched at any time ({@link #inject}), e.g. at a chosen point of a measured run. Decisions
 * are seeded: the n-th batch submitted gets the same fate for the same seed and fault, whatever the thread.
 *
 * <p>A lost batch never reports success: its requests still {@code PENDING} are marked {@code FAILED} and its
 * future fails with a {@link TransferException}, after the real transfer (if it was started) has finished, so no
 * byte moves into a caller's buffer after the caller was told the batch failed.
 */
public final class FaultInjectingTransferEngine implements FaultableEngine {

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private final TransferEngine inner;
    private final long seed;
    private final AtomicLong submitted = new AtomicLong();
    private final LongAdder delayed = new LongAdder(), droppedBefore = new LongAdder(), droppedAfter = new LongAdder();
    private volatile LinkFault fault;

    public FaultInjectingTransferEngine(TransferEngine inner, long seed, LinkFault initial) {
        this.inner = Objects.requireNonNull(inner, "inner");
        this.seed = seed;
        this.fault = Objects.requireNonNull(initial, "initial");
    }

    /** Wraps {@code inner} with no fault yet. */
    public static FaultInjectingTransferEngine wrap(TransferEngine inner, long seed) {
        return new FaultInjectingTransferEngine(inner, seed, LinkFault.NONE);
    }

    @Override
    public void inject(LinkFault f) {
        this.fault = Objects.requireNonNull(f, "fault");
    }

    @Override
    public LinkFault fault() {
        return fault;
    }

    public TransferEngine inner() {
        return inner;
    }

    @Override
    public long delayedBatches() {
        return delayed.sum();
    }

    @Override
    public long lostBatches() {
        return droppedBefore.sum() + droppedAfter.sum();
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public boolean emulated() {
        return inner.emulated();
    }

    @Override
    public String copySemantics() {
        LinkFault f = fault;
        return inner.copySemantics() + (f.none() ? "" : " (with an injected link fault: " + f + ")");
    }

    @Override
    public Segment registerSegment(String name, long bytes) {
        return inner.registerSegment(name, bytes);
    }

    @Override
    public MemorySegment allocateBuffer(long bytes) {
        return inner.allocateBuffer(bytes);
    }

    @Override
    public RemoteSegment openSegment(SegmentHandle handle) {
        return inner.openSegment(handle);
    }

    @Override
    public CompletableFuture<TransferBatch> submit(TransferBatch batch) {
        LinkFault f = fault;
        if (f.none() || (f.readsOnly() && !reads(batch))) return inner.submit(batch);
        long n = submitted.getAndIncrement();
        long r1 = mix(seed + n * GOLDEN), r2 = mix(r1);
        boolean lost = f.loss() > 0 && unit(r1) < f.loss();
        long delay = f.delay().toNanos()
                + (f.jitter().isZero() ? 0 : (long) (unit(r2) * f.jitter().toNanos()));
        if (lost && (r2 & 1) == 0) { // dropped before anything was sent
            droppedBefore.increment();
            batch.failPending(TransferStatus.FAILED);
            return later(CompletableFuture.failedFuture(lostException(batch, false)), delay);
        }
        CompletableFuture<TransferBatch> real = inner.submit(batch);
        if (lost) { // the bytes moved, the completion never arrived
            droppedAfter.increment();
            CompletableFuture<TransferBatch> failed = new CompletableFuture<>();
            real.whenComplete((b, e) -> {
                for (int i = 0; i < batch.size(); i++) batch.status(i, TransferStatus.FAILED);
                failed.completeExceptionally(lostException(batch, true));
            });
            return later(failed, delay);
        }
        if (delay > 0) delayed.increment();
        return later(real, delay);
    }

    private static boolean reads(TransferBatch b) {
        for (int i = 0; i < b.size(); i++) if (b.op(i) == dev.kvlab.transport.api.Opcode.READ) return true;
        return false;
    }

    private static TransferException lostException(TransferBatch b, boolean afterTransfer) {
        return new TransferException("link-loss fault: the connection dropped "
                + (afterTransfer ? "before the completion of" : "before sending") + " a batch of " + b.size()
                + " requests (injected)");
    }

    /** {@code f}'s outcome, {@code delayNanos} after it completed. */
    private static CompletableFuture<TransferBatch> later(CompletableFuture<TransferBatch> f, long delayNanos) {
        if (delayNanos <= 0) return f;
        Executor at = CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS);
        CompletableFuture<TransferBatch> out = new CompletableFuture<>();
        f.whenComplete((b, e) -> at.execute(() -> {
            if (e == null) out.complete(b);
            else
                out.completeExceptionally(
                        e instanceof CompletionException c && c.getCause() != null ? c.getCause() : e);
        }));
        return out;
    }

    private static double unit(long r) {
        return (r >>> 11) * 0x1.0p-53;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    @Override
    public void close() {
        inner.close();
    }
}
