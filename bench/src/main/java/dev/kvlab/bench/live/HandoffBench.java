package dev.kvlab.bench.live;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * What a hand-off to a parked thread costs the thread that makes it, after the machine was idle for {@code idleUs}:
 * the live clock's I/O hand-offs (a task to the I/O pool, a result back to the loop) are this call, and a live
 * request makes several ({@code harness_handoff_cpu_us_per_request}). No kvlab code: a JDK fixed pool, an empty
 * task. The invocation parks the calling thread for {@code idleUs} (both threads idle, as between a live cell's
 * requests), then submits the task; the caller's CPU time in {@code execute} (thread CPU clock, its own reads
 * included) is printed per hand-off at the end of each trial (measurement iterations); the score is the whole
 * invocation's time. If the cost grows with the idle time, waking the other CPU is what costs (on a VM, a virtual
 * CPU that has halted costs the waker an exit to the hypervisor). Run: {@code java -jar bench/target/kvlab-bench.jar HandoffBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class HandoffBench {

    /** How long both threads idle before each hand-off (µs). */
    @Param({"400", "5000", "50000"})
    public long idleUs;

    private ExecutorService pool;
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private static final Runnable NOTHING = () -> {};

    @Setup(Level.Trial)
    public void start() throws Exception {
        pool = Executors.newFixedThreadPool(1);
        pool.submit(NOTHING).get(); // the worker exists and is parked in take()
    }

    @TearDown(Level.Trial)
    public void stop() {
        pool.shutdownNow();
        System.out.printf(
                "%nhand-off after %d us idle: %.1f us of the caller's CPU per hand-off (%d hand-offs, measurement iterations)%n",
                idleUs, cpuUs / handoffs, handoffs);
    }

    private boolean measuring;
    private double cpuUs;
    private long handoffs;

    /** Only the measurement iterations count (the warm-up's hand-offs compile the path). */
    @Setup(Level.Iteration)
    public void iteration(IterationParams p) {
        measuring = p.getType() == IterationType.MEASUREMENT;
    }

    @Benchmark
    public void handoffAfterIdle() {
        LockSupport.parkNanos(idleUs * 1000);
        long c0 = mx.getCurrentThreadCpuTime();
        pool.execute(NOTHING);
        long c1 = mx.getCurrentThreadCpuTime();
        if (measuring) {
            cpuUs += (c1 - c0) / 1e3;
            handoffs++;
        }
    }
}
