package dev.kvlab.transport.internal.common;

import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransferStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Enforces batch timeouts: an intrusive list of in-flight batches and one daemon thread that wakes a few
 * times per timeout period and hands every expired batch to the engine's handler (which must stop all I/O on
 * the batch's buffers, then fail it). The thread sleeps between checks; it never spins.
 */
public final class Deadlines implements AutoCloseable {

    private final Object lock = new Object();
    private BatchProgress head;
    private final Thread thread;
    private final long periodNanos;
    private final Consumer<BatchProgress> onExpired;
    private volatile boolean closed;

    /** {@code onExpired} defaults to failing the batch with {@link TransferStatus#TIMEOUT} when null. */
    public Deadlines(String name, Duration timeout, Consumer<BatchProgress> onExpired) {
        this.periodNanos = Math.clamp(
                timeout.toNanos() / 20, TimeUnit.MILLISECONDS.toNanos(2), TimeUnit.MILLISECONDS.toNanos(100));
        this.onExpired = onExpired != null ? onExpired : Deadlines::failTimedOut;
        this.thread = Thread.ofPlatform().daemon().name(name + "-deadlines").unstarted(this::run);
        thread.start();
    }

    public static void failTimedOut(BatchProgress p) {
        p.fail(TransferStatus.TIMEOUT, timeoutException(p));
    }

    public static TransferException timeoutException(BatchProgress p) {
        return new TransferException("batch of " + p.batch.size() + " requests did not complete within its timeout");
    }

    public void add(BatchProgress p) {
        synchronized (lock) {
            p.nextDeadline = head;
            p.prevDeadline = null;
            if (head != null) head.prevDeadline = p;
            head = p;
            p.inDeadlines = true;
        }
    }

    public void remove(BatchProgress p) {
        synchronized (lock) {
            if (!p.inDeadlines) return;
            if (p.prevDeadline != null) p.prevDeadline.nextDeadline = p.nextDeadline;
            else head = p.nextDeadline;
            if (p.nextDeadline != null) p.nextDeadline.prevDeadline = p.prevDeadline;
            p.prevDeadline = p.nextDeadline = null;
            p.inDeadlines = false;
        }
    }

    /** Every batch still tracked (for engine shutdown). */
    public List<BatchProgress> drain() {
        List<BatchProgress> all = new ArrayList<>();
        synchronized (lock) {
            for (BatchProgress p = head; p != null; ) {
                BatchProgress n = p.nextDeadline;
                p.prevDeadline = p.nextDeadline = null;
                p.inDeadlines = false;
                all.add(p);
                p = n;
            }
            head = null;
        }
        return all;
    }

    private void run() {
        List<BatchProgress> expired = new ArrayList<>();
        while (!closed) {
            LockSupport.parkNanos(periodNanos);
            long now = System.nanoTime();
            synchronized (lock) {
                for (BatchProgress p = head; p != null; p = p.nextDeadline) {
                    if (p.isDone() || now - p.deadlineNanos >= 0) expired.add(p);
                }
            }
            for (BatchProgress p : expired) {
                remove(p);
                if (!p.isDone()) {
                    try {
                        onExpired.accept(p);
                    } catch (RuntimeException e) {
                        p.fail(
                                TransferStatus.TIMEOUT,
                                new TransferException("batch timed out; cleaning up failed: " + e, e));
                    }
                }
            }
            expired.clear();
        }
    }

    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }
}
