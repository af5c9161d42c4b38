package dev.kvlab.harness.core.internal.live;

import dev.kvlab.harness.core.internal.sim.EventHeap;
import dev.kvlab.harness.spi.LiveClock;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;

/**
 * The live clock: the same event model as the sim, on the wall clock. One thread (the one calling {@link #run})
 * runs every event; an event scheduled for time {@code t} runs once {@code System.nanoTime()} has reached it,
 * waited out precisely: parked until the last {@code spinNanos}, then spun. Other threads (store I/O) hand results
 * back with {@link #post}. It measures itself: how late events run ({@link #lag()}), how long the loop thread
 * spends running them ({@link #busyNanos()}, {@link #workCpuNanos()}: the harness's own work, as opposed to the
 * waits that emulate GPU time), its CPU in all ({@link #runCpuNanos()}) and the time it spins ({@link #spunNanos()}).
 *
 * <p>An {@linkplain #adaptive adaptive} loop spins a tail as long as the park overshoots on this machine (the largest of
 * the last {@value #OVERSHOOTS} parks that nothing woke early, plus a margin, within a bound): a virtual machine's
 * park can overshoot by a millisecond, and a real engine's request sent that late has that much more TTFT.
 */
public final class LiveLoop implements LiveClock {

    private final long origin = System.nanoTime();
    private static final int OVERSHOOTS = 32;
    private static final long MARGIN_NANOS = 20_000;
    private long spinNanos;
    private final long minSpinNanos, maxSpinNanos;
    private final long[] overshoots;
    private int overshootCount;
    private final EventHeap heap = new EventHeap();
    private final ConcurrentLinkedQueue<Runnable> inbox = new ConcurrentLinkedQueue<>();
    /** Sized for 10 s from the start (an auto-resizing histogram grows by an exception and a copy per doubling, on the loop thread). */
    private final Histogram lag = sized(10_000_000L), eventBusy = sized(10_000_000_000L);

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private volatile Thread owner;
    private long busyNanos, workCpuNanos, runCpuNanos, spunNanos;
    /** Thread CPU time at the start of the current busy stretch, -1 between stretches. */
    private long stretchCpu = -1;

    private long events;

    public LiveLoop(long spinNanos) {
        this.spinNanos = spinNanos;
        this.minSpinNanos = this.maxSpinNanos = spinNanos;
        this.overshoots = null;
    }

    private LiveLoop(long minSpinNanos, long maxSpinNanos) {
        this.spinNanos = this.minSpinNanos = minSpinNanos;
        this.maxSpinNanos = maxSpinNanos;
        this.overshoots = new long[OVERSHOOTS];
    }

    /** A loop whose spun tail follows the park overshoot measured on this machine, from {@code min} up to {@code max}. */
    public static LiveLoop adaptive(long minSpinNanos, long maxSpinNanos) {
        if (minSpinNanos < 0 || maxSpinNanos < minSpinNanos)
            throw new IllegalArgumentException("spin bounds " + minSpinNanos + ", " + maxSpinNanos);
        LiveLoop l = new LiveLoop(minSpinNanos, maxSpinNanos);
        for (int i = 0; i < OVERSHOOTS / 2; i++) l.park(200_000); // a first estimate, a few milliseconds
        return l;
    }

    /** The tail of each wait that is spun now (ns): fixed, or as adapted so far. */
    public long spinNanos() {
        return spinNanos;
    }

    private static Histogram sized(long highest) {
        Histogram h = new Histogram(highest, 3);
        h.setAutoResize(true);
        return h;
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
        long cpu0 = threads.getCurrentThreadCpuTime();
        try {
            while (turn(done)) {
                // each turn is a call of its own: a method that loops for a whole phase is compiled late (on-stack
                // replacement after tens of thousands of iterations), and short cells ran their loop interpreted
            }
        } finally {
            endStretch();
            runCpuNanos += threads.getCurrentThreadCpuTime() - cpu0;
            owner = null;
        }
    }

    /** One turn of the loop: posted results, then the next due event or a wait for it; false when done. */
    private boolean turn(BooleanSupplier done) {
        drainInbox();
        if (heap.isEmpty()) {
            endStretch();
            if (done.getAsBoolean() && inbox.isEmpty()) return false;
            LockSupport.parkNanos(1_000_000L);
            return true;
        }
        long due = heap.peekTime();
        long wait = due - now();
        if (wait > 0) {
            endStretch();
            if (wait > spinNanos) park(wait - spinNanos);
            else spin(due);
            return true;
        }
        long start = System.nanoTime();
        beginStretch();
        lag.recordValue(Math.max(0, start - origin - due) / 1000);
        heap.poll().run();
        events++;
        long took = System.nanoTime() - start;
        busyNanos += took;
        eventBusy.recordValue(took);
        return true;
    }

    private void park(long nanos) {
        if (overshoots == null) {
            LockSupport.parkNanos(nanos);
            return;
        }
        long planned = System.nanoTime() + nanos;
        LockSupport.parkNanos(nanos);
        long over = System.nanoTime() - planned;
        if (over < 0 || !inbox.isEmpty()) return; // woken early (a post): says nothing of the overshoot
        overshoots[overshootCount++ % OVERSHOOTS] = over;
        long worst = 0;
        for (int i = 0; i < Math.min(overshootCount, OVERSHOOTS); i++) worst = Math.max(worst, overshoots[i]);
        spinNanos = Math.clamp(worst + MARGIN_NANOS, minSpinNanos, maxSpinNanos);
    }

    /**
     * Spins until {@code due} or until something is posted. Its time counts as spun, each spin at most the wait it
     * covered (a spin preempted by another thread used no CPU meanwhile): wall time, no CPU clock read per spin.
     */
    private void spin(long due) {
        long s = System.nanoTime(), t = s;
        while (t - origin < due && inbox.isEmpty()) {
            Thread.onSpinWait();
            t = System.nanoTime();
        }
        spunNanos += Math.min(t - s, Math.max(0, due - (s - origin)));
    }

    /** A busy stretch (events and posted results back to back, between two waits) begins, unless one is going on. */
    private void beginStretch() {
        if (stretchCpu < 0) stretchCpu = threads.getCurrentThreadCpuTime();
    }

    /** Ends a busy stretch: its CPU time is counted once, two thread-CPU reads per wake-up, not per event. */
    private void endStretch() {
        if (stretchCpu < 0) return;
        workCpuNanos += threads.getCurrentThreadCpuTime() - stretchCpu;
        stretchCpu = -1;
    }

    private void drainInbox() {
        Runnable r;
        while ((r = inbox.poll()) != null) {
            long start = System.nanoTime();
            beginStretch();
            r.run();
            busyNanos += System.nanoTime() - start;
        }
    }

    /** Starts the figures over (lag, time per event, events): the measured phase's own, not the warm-up's. */
    public void resetFigures() {
        lag.reset();
        eventBusy.reset();
        events = 0;
    }

    /** How late events ran after their scheduled time (µs). */
    public Histogram lag() {
        return lag;
    }

    /** Wall time the loop thread spent running events and posted results (the harness's own work). */
    public long busyNanos() {
        return busyNanos;
    }

    /** CPU time the loop thread spent running events and posted results (not parking or spinning; up to date between {@link #run}s). */
    public long workCpuNanos() {
        return workCpuNanos;
    }

    /** CPU time the loop thread spent in {@link #run}: its work and its waits (up to date between runs). */
    public long runCpuNanos() {
        return runCpuNanos;
    }

    /** Time the loop thread spent spinning out the tails of waits (wall time; part of its waits). */
    public long spunNanos() {
        return spunNanos;
    }

    /** Wall time the loop thread spent on each event (ns). */
    public Histogram eventBusy() {
        return eventBusy;
    }

    public long events() {
        return events;
    }
}
