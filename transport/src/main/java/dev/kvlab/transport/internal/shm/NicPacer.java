package dev.kvlab.transport.internal.shm;

import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.internal.common.BatchProgress;
import java.util.PriorityQueue;
import java.util.function.Consumer;
import java.util.concurrent.locks.LockSupport;

/**
 * The emulated NIC of {@code rdma-emu}: {@code links} lanes of a given line rate and a per-operation latency.
 * Each slice reserves transmission time on the lane that frees up first ({@code start = max(now, lane free)},
 * {@code finish = start + bytes / rate}); a batch completes at its latest finish plus the latency. Reservations
 * are first come, first served, so concurrent batches share the modelled bandwidth. One daemon thread
 * completes batches at their modelled times; it parks until the earliest one and never spins.
 */
final class NicPacer implements AutoCloseable {

    private final LinkSpec link;
    private final double nanosPerByte;
    private final long latencyNanos;
    private final double[] laneFree; // nanoTime units, as double for sub-nanosecond accumulation
    private final PriorityQueue<BatchProgress> due = new PriorityQueue<>((a, b) -> Long.compare(a.engineNanos(), b.engineNanos()));
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

    LinkSpec link() { return link; }

    long latencyNanos() { return latencyNanos; }

    /** Reserves {@code bytes} on the first free lane; returns the modelled finish time (nanoTime units). */
    synchronized long reserve(int bytes) {
        int best = 0;
        for (int i = 1; i < laneFree.length; i++) if (laneFree[i] < laneFree[best]) best = i;
        double start = Math.max(System.nanoTime(), laneFree[best]);
        double finish = start + bytes * nanosPerByte;
        laneFree[best] = finish;
        return (long) Math.ceil(finish);
    }

    /**
     * Runs {@code done} for {@code p} at {@code atNanos} (immediately when that has passed). The batch's
     * {@link BatchProgress#engineNanos()} is set to the due time and must not change while queued.
     */
    void completeAt(BatchProgress p, long atNanos, Consumer<BatchProgress> done) {
        if (atNanos - System.nanoTime() <= 0) {
            done.accept(p);
            return;
        }
        p.raiseEngineNanos(atNanos);
        synchronized (this) {
            completion = done;
            BatchProgress head = due.peek();
            due.add(p);
            if (head == null || atNanos < head.engineNanos()) LockSupport.unpark(thread);
        }
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
                    if (wait <= 0) ready = due.poll();
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
