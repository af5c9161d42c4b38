package dev.kvlab.harness.internal.live;

import dev.kvlab.harness.internal.engine.EventLoop;
import dev.kvlab.harness.internal.sim.EventHeap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;

/**
 * The live clock: the same event model as the sim, on the wall clock. One thread (the one calling {@link #run})
 * runs every event; an event scheduled for time {@code t} runs once {@code System.nanoTime()} has reached it,
 * waited out precisely: parked until the last {@code spinNanos}, then spun. Other threads (store I/O) hand results
 * back with {@link #post}. It measures itself: how late events run ({@link #lag()}) and how long the loop thread
 * spends running them ({@link #busyNanos()}), i.e. the harness's own time, as opposed to modelled GPU waits.
 */
public final class LiveLoop implements EventLoop {

    private final long origin = System.nanoTime();
    private final long spinNanos;
    private final EventHeap heap = new EventHeap();
    private final ConcurrentLinkedQueue<Runnable> inbox = new ConcurrentLinkedQueue<>();
    private final Histogram lag = new Histogram(3);
    private final Histogram eventBusy = new Histogram(3);
    private volatile Thread owner;
    private long busyNanos;
    private long busyCpuNanos;
    /** Thread CPU time at the start of the current busy stretch, -1 between stretches. */
    private long stretchCpu = -1;
    private final java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    private long events;

    public LiveLoop(long spinNanos) {
        this.spinNanos = spinNanos;
    }

    @Override
    public long now() {
        return System.nanoTime() - origin;
    }

    @Override
    public void at(long timeNanos, Runnable action) {
        if (Thread.currentThread() != owner && owner != null) {
            post(() -> heap.add(timeNanos, action));
            return;
        }
        heap.add(timeNanos, action);
    }

    /** Runs {@code action} on the loop thread as soon as possible (thread-safe). */
    public void post(Runnable action) {
        inbox.add(action);
        Thread t = owner;
        if (t != null) LockSupport.unpark(t);
    }

    /** Runs events until {@code done} holds and nothing is scheduled or posted. */
    public void run(BooleanSupplier done) {
        owner = Thread.currentThread();
        try {
            while (true) {
                drainInbox();
                if (heap.isEmpty()) {
                    endStretch();
                    if (done.getAsBoolean() && inbox.isEmpty()) return;
                    LockSupport.parkNanos(1_000_000L);
                    continue;
                }
                long due = heap.peekTime();
                long wait = due - now();
                if (wait > 0) {
                    endStretch();
                    if (wait > spinNanos) {
                        LockSupport.parkNanos(wait - spinNanos);
                    } else {
                        Thread.onSpinWait();
                    }
                    if (!inbox.isEmpty() || now() < due) continue;
                }
                long start = System.nanoTime();
                if (stretchCpu < 0) stretchCpu = threads.getCurrentThreadCpuTime(); // a busy stretch begins
                long late = start - origin - due;
                lag.recordValue(Math.max(0, late) / 1000);
                Runnable r = heap.poll();
                r.run();
                events++;
                long took = System.nanoTime() - start;
                busyNanos += took;
                eventBusy.recordValue(took);
            }
        } finally {
            endStretch();
            owner = null;
        }
    }

    /**
     * Ends a busy stretch (events and posted results run back to back): its CPU time is counted once, so that the
     * accounting costs two thread-CPU reads per wake-up, not per event (on a loaded VM a read costs about 1 us).
     */
    private void endStretch() {
        if (stretchCpu < 0) return;
        busyCpuNanos += threads.getCurrentThreadCpuTime() - stretchCpu;
        stretchCpu = -1;
    }

    private void drainInbox() {
        Runnable r;
        while ((r = inbox.poll()) != null) {
            long start = System.nanoTime();
            if (stretchCpu < 0) stretchCpu = threads.getCurrentThreadCpuTime();
            r.run();
            busyNanos += System.nanoTime() - start;
        }
    }

    /** How late events ran after their scheduled time (µs). */
    public Histogram lag() {
        return lag;
    }

    /** Wall time the loop thread spent running events and posted results (the harness's own work). */
    public long busyNanos() {
        return busyNanos;
    }

    /** CPU time the loop thread spent running events and posted results (excludes preemption, parking and spinning; up to date between {@link #run}s). */
    public long busyCpuNanos() {
        return busyCpuNanos;
    }

    /** Wall time the loop thread spent on each event (ns). */
    public Histogram eventBusy() {
        return eventBusy;
    }

    public long events() {
        return events;
    }
}
