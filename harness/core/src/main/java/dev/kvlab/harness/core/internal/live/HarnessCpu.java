package dev.kvlab.harness.core.internal.live;

import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where a live cell's own CPU goes, and the one figure issue 13 bounds: <b>harness CPU per request</b>
 * ({@link Columns#HARNESS_CPU_US_PER_REQUEST}), the CPU time the harness's threads spend working on the measured phase, per measured
 * request, not counting copying and verifying bytes. It adds up
 * <ul>
 *   <li>the loop thread while it runs events and posted results (serving model, workload, measurement, request log,
 *       hand-offs to the I/O threads: {@link LiveLoop#workCpuNanos()}), and</li>
 *   <li>the I/O and write-back threads while they run the tier's tasks, minus the time inside the store's calls and
 *       the byte work around them ({@link #storeAndBytes}: the transfer and its copies, the client's CRC32C, the
 *       content check, the audit, writing payloads), which is what the store costs ({@code kvlab bench store}).</li>
 * </ul>
 * Of it, the hand-offs between threads ({@code harness_handoff_cpu_us_per_request}: a task to a pool, a result to the
 * loop; timed around each) are shown apart: waking a parked thread is a system call whose cost is the kernel's and,
 * on a VM, the hypervisor's (an inter-processor interrupt to a halted virtual CPU), and it grows with how long that
 * CPU has been idle (see {@code HandoffBench}).
 * Not in it: <b>waiting</b>. The loop thread parks and then spins until a modelled GPU iteration ends (that is how
 * the wall clock emulates the GPU: its cost is per iteration, not per request, and on a VM a park and its timer
 * wake-up cost tens of microseconds of kernel time); the pool threads park between tasks. That CPU is measured
 * too and shown apart ({@code harness_wait_cpu_us_per_request}, of which spinning {@code harness_spin_us_per_request}),
 * as is the CPU of the store calls on the pool threads ({@code store_call_cpu_us_per_request}); the embedded store's own
 * threads (server side) are the store's. Reading a thread's CPU clock is a system call (0.5 to 1 us on a VM): the
 * loop thread reads it twice per wake-up that runs something, an I/O task four to six times; that cost is the
 * harness's and counted. (Reading it for a sample of the loop's stretches and scaling their wall time was tried:
 * under load, preemption within unsampled stretches made the estimate off by a factor of two.) Spinning is timed by
 * the wall clock, each spin at most the wait it covered. On a kernel without {@code CONFIG_IRQ_TIME_ACCOUNTING} (the
 * usual VM kernel) interrupt and softirq work, e.g. loopback TCP of the store's transfers, is charged to whichever
 * thread it interrupts, the harness's included.
 */
public final class HarnessCpu {

    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private final Set<Thread> pool = ConcurrentHashMap.newKeySet();
    private final LongAdder taskCpu = new LongAdder(), storeCpu = new LongAdder(), handoffCpu = new LongAdder();
    /** Pool tasks running: a snapshot waits until their CPU is counted. */
    private final AtomicInteger running = new AtomicInteger();

    /** CPU time of the calling thread (ns). */
    long now() {
        return mx.getCurrentThreadCpuTime();
    }

    /** Daemon threads named {@code name} whose CPU is counted (the tier's pools). */
    ThreadFactory threads(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            pool.add(t);
            return t;
        };
    }

    /** {@code task} on a pool thread, its CPU counted as task time. */
    Runnable task(Runnable task) {
        return () -> {
            running.incrementAndGet();
            long c0 = now();
            try {
                task.run();
            } finally {
                taskCpu.add(now() - c0);
                running.decrementAndGet();
            }
        };
    }

    /** Ends a stretch of store calls and byte work on a pool task that began at thread CPU {@code startCpu} ({@link #now()}). */
    void storeAndBytes(long startCpu) {
        storeCpu.add(now() - startCpu);
    }

    /**
     * Ends a hand-off to another thread (a task to a pool, a result to the loop) that began at thread CPU
     * {@code startCpu} on the calling thread: part of the figure, shown on its own because it is mostly the kernel's
     * (and on a VM the hypervisor's) cost of waking a parked thread, which grows with how long its CPU has been idle.
     */
    void handoff(long startCpu) {
        handoffCpu.add(now() - startCpu);
    }

    /** What the counters say now; call on the loop thread between phases. */
    Snapshot snapshot(LiveLoop loop) {
        while (running.get() > 0)
            Thread.onSpinWait(); // a task's last posted result may have ended the phase before its CPU was added
        long poolTotal = 0;
        for (Thread t : pool) poolTotal += Math.max(0, mx.getThreadCpuTime(t.threadId()));
        return new Snapshot(
                loop.runCpuNanos(),
                loop.workCpuNanos(),
                loop.spunNanos(),
                poolTotal,
                taskCpu.sum(),
                storeCpu.sum(),
                handoffCpu.sum());
    }

    /** The counters at one moment (ns, cumulative). */
    record Snapshot(
            long loopRun,
            long loopWork,
            long loopSpin,
            long poolTotal,
            long poolTask,
            long storeAndBytes,
            long handoff) {}

    /** The figures of the stretch from {@code a} to {@code b}, per request (µs), into {@code extras}. */
    static void extras(Snapshot a, Snapshot b, long requests, Figures extras) {
        double n = requests == 0 ? Double.NaN : requests * 1e3;
        long loopWork = b.loopWork - a.loopWork,
                task = b.poolTask - a.poolTask,
                store = b.storeAndBytes - a.storeAndBytes;
        long waitLoop = (b.loopRun - a.loopRun) - loopWork, waitPool = (b.poolTotal - a.poolTotal) - task;
        Columns.HARNESS_CPU_US_PER_REQUEST.put(extras, (loopWork + task - store) / n);
        Columns.HARNESS_LOOP_CPU_US_PER_REQUEST.put(extras, loopWork / n);
        Columns.HARNESS_IO_CPU_US_PER_REQUEST.put(extras, (task - store) / n);
        Columns.HARNESS_HANDOFF_CPU_US_PER_REQUEST.put(extras, (b.handoff - a.handoff) / n);
        Columns.HARNESS_WAIT_CPU_US_PER_REQUEST.put(extras, (Math.max(0, waitLoop) + Math.max(0, waitPool)) / n);
        Columns.HARNESS_SPIN_US_PER_REQUEST.put(extras, (b.loopSpin - a.loopSpin) / n);
        Columns.STORE_CALL_CPU_US_PER_REQUEST.put(extras, store / n);
    }
}
