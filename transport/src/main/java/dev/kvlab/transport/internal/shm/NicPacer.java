package dev.kvlab.transport.internal.shm;

import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.internal.common.BatchProgress;
import java.util.PriorityQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The emulated NIC of {@code rdma-emu}: {@code links} lanes of one line rate and a per-operation latency.
 *
 * <p>At submission every slice of a batch reserves transmission time on the lane that frees up first
 * ({@code start = max(lane free, now)}, {@code finish = start + bytes / rate}); the batch completes at its latest
 * finish plus the latency, or when its copies are done if that is later. Transmissions on a lane never
 * overlap, so no interval of time carries more than the line rate; concurrent batches share the lanes first
 * come, first served.
 *
 * <p>Emulator lateness is not charged to the link: when the completion thread (or the copies) deliver a
 * completion {@code d} ns after its modelled time, the next reservation may start up to
 * {@code min(d, }{@value #MAX_CREDIT_NANOS}{@code  ns)} in the past, filling the idle gap the emulator's own timer
 * slack and wake-up caused. Lanes still never overlap, so the line rate still holds; the cap keeps any single
 * batch from finishing much faster than its wire time after a long scheduling stall (such stalls are charged
 * to the host, as they would be with real hardware). One daemon thread completes batches at their modelled
 * times; it parks and never spins.
 */
final class NicPacer implements AutoCloseable {

    /** The most emulator lateness one reservation may recover. */
    static final long MAX_CREDIT_NANOS = 1_000_000;

    private final LinkSpec link;
    private final double nanosPerByte;
    private final long latencyNanos;
    private final double[] laneFree; // nanoTime units, as double for sub-nanosecond accumulation
    private double lateCredit;
    private final PriorityQueue<BatchProgress> due =
            new PriorityQueue<>((a, b) -> Long.compare(a.engineNanos(), b.engineNanos()));
    private final Thread thread;
    private Consumer<BatchProgress> completion;
    private volatile boolean closed;

    NicPacer(LinkSpec link, long defaultLatencyNanos) {
        this.link = link;
        this.nanosPerByte = 8e9 / link.bitsPerSecondPerLink();
        this.latencyNanos = link.latency() != null ? link.latency().toNanos() : defaultLatencyNanos;
        this.laneFree = new double[link.links()];
        this.thread = Thread.ofPlatform().daemon().name("kvlab-rdma-emu-nic").unstarted(this::run);
        thread.start();
    }

    LinkSpec link() {
        return link;
    }

    long latencyNanos() {
        return latencyNanos;
    }

    /** Reserves lane time for every slice of {@code b}; returns when the batch is due (nanoTime units). */
    synchronized long reserve(TransferBatch b, long sliceSize) {
        double now = System.nanoTime();
        double floor = now - Math.min(lateCredit, MAX_CREDIT_NANOS);
        lateCredit = 0;
        double last = now;
        for (int i = 0; i < b.size(); i++) {
            long len = b.length(i);
            for (long off = 0; off < len; off += sliceSize) {
                long n = Math.min(sliceSize, len - off);
                int lane = 0;
                for (int k = 1; k < laneFree.length; k++) if (laneFree[k] < laneFree[lane]) lane = k;
                double finish = Math.max(floor, laneFree[lane]) + n * nanosPerByte;
                laneFree[lane] = finish;
                if (finish > last) last = finish;
            }
        }
        return (long) Math.ceil(last) + latencyNanos;
    }

    /** Runs {@code done} for {@code p} at its due time {@link BatchProgress#engineNanos()} (now, if that has passed). */
    void completeAt(BatchProgress p, Consumer<BatchProgress> done) {
        long at = p.engineNanos();
        long late = System.nanoTime() - at;
        if (late >= 0) {
            credit(late);
            done.accept(p);
            return;
        }
        synchronized (this) {
            completion = done;
            BatchProgress head = due.peek();
            due.add(p);
            if (head == null || at < head.engineNanos()) LockSupport.unpark(thread);
        }
    }

    private synchronized void credit(long lateNanos) {
        lateCredit = Math.max(lateCredit, lateNanos);
    }

    private void run() {
        while (!closed) {
            BatchProgress ready = null;
            long wait;
            Consumer<BatchProgress> done;
            synchronized (this) {
                BatchProgress head = due.peek();
                done = completion;
                if (head == null) {
                    wait = 0;
                } else {
                    wait = head.engineNanos() - System.nanoTime();
                    if (wait <= 0) {
                        ready = due.poll();
                        lateCredit = Math.max(lateCredit, -wait);
                    }
                }
            }
            if (ready != null) {
                done.accept(ready);
            } else if (wait == 0) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, wait);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }
}
