package dev.kvlab.transport.internal.common;

import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransferStatus;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The state of one submitted batch inside an engine: the slicing cursor (which request and offset is issued
 * next), the number of slices still outstanding, and the completion. Slices are produced lazily, so a batch
 * of any size costs this one object plus its future; nothing is allocated per request or per slice.
 *
 * <p>Completion happens exactly once, normally ({@link #complete()}: every still-pending request becomes
 * {@link TransferStatus#OK}) or exceptionally ({@link #fail}). Whoever fails a batch first makes sure no slice
 * of it is still touching the caller's buffers ({@link #awaitNoActiveCopies()} or by closing connections).
 */
public final class BatchProgress {

    public final TransferBatch batch;
    public final CompletableFuture<TransferBatch> future = new CompletableFuture<>();
    public final long sliceSize;
    public final long deadlineNanos;
    private final int totalSlices;
    private final AtomicInteger outstanding;
    private final AtomicBoolean done = new AtomicBoolean();
    private final AtomicInteger activeCopies = new AtomicInteger();

    // issue cursor: guarded by whoever issues slices (one lock per queue)
    private int nextRequest;
    private long nextOffset;

    /** Out-parameters of {@link #nextSlice()}; valid until the next call on the same batch. */
    public int sliceRequest;

    public long sliceOffset;
    public int sliceLength;

    /** Free for the engine: e.g. the latest modelled finish time of a paced batch ({@link #raiseEngineNanos}). */
    private volatile long engineNanos;

    private static final VarHandle ENGINE_NANOS;

    static {
        try {
            ENGINE_NANOS = MethodHandles.lookup().findVarHandle(BatchProgress.class, "engineNanos", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // intrusive links for {@link Deadlines}
    BatchProgress prevDeadline, nextDeadline;
    boolean inDeadlines;

    public BatchProgress(TransferBatch batch, long sliceSize, long timeoutNanos) {
        this.batch = batch;
        this.sliceSize = sliceSize;
        this.deadlineNanos = System.nanoTime() + timeoutNanos;
        long slices = 0;
        for (int i = 0; i < batch.size(); i++) slices += (batch.length(i) + sliceSize - 1) / sliceSize;
        if (slices > Integer.MAX_VALUE) throw new IllegalArgumentException("batch has too many slices: " + slices);
        this.totalSlices = (int) slices;
        this.outstanding = new AtomicInteger(totalSlices);
    }

    public int totalSlices() {
        return totalSlices;
    }

    public boolean isDone() {
        return done.get();
    }

    private volatile boolean timedOut;

    /** Marks the batch as failing because of its deadline, so that whoever fails it reports TIMEOUT. */
    public void markTimedOut() {
        timedOut = true;
    }

    /** The status for requests of this batch that are failed now: TIMEOUT once marked, else {@code otherwise}. */
    public TransferStatus failStatus(TransferStatus otherwise) {
        return timedOut ? TransferStatus.TIMEOUT : otherwise;
    }

    /** True when every slice has been handed out. Caller holds the issuing lock. */
    public boolean fullyIssued() {
        skipEmpty();
        return nextRequest >= batch.size();
    }

    /**
     * Hands out the next slice into {@link #sliceRequest}/{@link #sliceOffset}/{@link #sliceLength} (offset within
     * the request). Returns false when all slices are issued. Caller holds the issuing lock.
     */
    public boolean nextSlice() {
        skipEmpty();
        if (nextRequest >= batch.size()) return false;
        long len = batch.length(nextRequest);
        sliceRequest = nextRequest;
        sliceOffset = nextOffset;
        sliceLength = (int) Math.min(sliceSize, len - nextOffset);
        nextOffset += sliceLength;
        if (nextOffset >= len) {
            nextRequest++;
            nextOffset = 0;
        }
        return true;
    }

    private void skipEmpty() {
        while (nextRequest < batch.size() && batch.length(nextRequest) == 0) nextRequest++;
    }

    public long engineNanos() {
        return engineNanos;
    }

    /** Raises {@link #engineNanos()} to at least {@code v} (thread-safe). */
    public void raiseEngineNanos(long v) {
        long seen;
        while (v > (seen = engineNanos) && !ENGINE_NANOS.compareAndSet(this, seen, v)) Thread.onSpinWait();
    }

    /**
     * Records the end of one slice; {@code error} is null when it moved every byte. Returns true for the last
     * slice of the batch: the caller then completes it (possibly later, e.g. after pacing).
     */
    public boolean sliceDone(int request, TransferStatus error) {
        if (error != null && batch.status(request) == TransferStatus.PENDING) batch.status(request, error);
        return outstanding.decrementAndGet() == 0;
    }

    /** Completes normally: every request without an error becomes OK. False when already completed. */
    public boolean complete() {
        if (!done.compareAndSet(false, true)) return false;
        for (int i = 0; i < batch.size(); i++)
            if (batch.status(i) == TransferStatus.PENDING) batch.status(i, TransferStatus.OK);
        future.complete(batch);
        return true;
    }

    /** Completes exceptionally; pending requests get {@code status}. False when already completed. */
    public boolean fail(TransferStatus status, TransferException cause) {
        if (!done.compareAndSet(false, true)) return false;
        awaitNoActiveCopies();
        batch.failPending(status);
        future.completeExceptionally(cause);
        return true;
    }

    /** Marks a copy into or out of the caller's buffers as running; false (and nothing marked) when the batch is already done. */
    public boolean beginCopy() {
        activeCopies.incrementAndGet();
        if (done.get()) {
            activeCopies.decrementAndGet();
            return false;
        }
        return true;
    }

    public void endCopy() {
        activeCopies.decrementAndGet();
    }

    /** Waits (briefly: one slice copy) until no copy of this batch touches the caller's memory. */
    public void awaitNoActiveCopies() {
        while (activeCopies.get() != 0) Thread.onSpinWait();
    }
}
