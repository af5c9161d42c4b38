package dev.kvlab.bench.live;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.AuxCounters;
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

/**
 * What a hand-off to a parked thread costs the thread that makes it, after the machine was idle for {@code idleUs}:
 * the live clock's I/O hand-offs (a task to the I/O pool, a result back to the loop) are this call, and a live
 * request makes several ({@code harness_handoff_cpu_us_per_request}). No kvlab code: a JDK fixed pool, an empty
 * task. The invocation parks the calling thread for {@code idleUs} (both threads idle, as between a live cell's
 * requests), then submits the task; the caller's CPU time in {@code execute} (thread CPU clock, its own reads
 * included) is printed per hand-off at the end of each trial (aux counters {@code handoffCpuUs} and {@code handoffs}: its
 * sums), the score is the whole invocation's time. On bare
 * metal it is a few microseconds whatever the idle time; on a VM waking a virtual CPU that has halted costs the
 * waker an exit to the hypervisor. Run: {@code java -jar bench/target/kvlab-bench.jar HandoffBench}.
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
    private static final Runnable NOTHING = () -> { };

    @Setup(Level.Trial)
    public void start() throws Exception {
        pool = Executors.newFixedThreadPool(1);
        pool.submit(NOTHING).get(); // the worker exists and is parked in take()
    }

    @TearDown(Level.Trial)
    public void stop() {
        pool.shutdownNow();
        System.out.printf("%nhand-off after %d us idle: %.1f us of the caller's CPU per hand-off (%d hand-offs, warm-up and measured iterations)%n",
                idleUs, trialCpuUs / trialHandoffs, trialHandoffs);
    }

    /** The caller's CPU in {@code execute}, summed (µs); JMH reports it per invocation. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Cost {
        public double handoffCpuUs;
        public long handoffs;

        @Setup(Level.Iteration)
        public void clear() {
            handoffCpuUs = 0;
            handoffs = 0;
        }
    }

    private double trialCpuUs;
    private long trialHandoffs;

    @Benchmark
    public void handoffAfterIdle(Cost cost) {
        LockSupport.parkNanos(idleUs * 1000);
        long c0 = mx.getCurrentThreadCpuTime();
        pool.execute(NOTHING);
        double us = (mx.getCurrentThreadCpuTime() - c0) / 1e3;
        cost.handoffCpuUs += us;
        cost.handoffs++;
        trialCpuUs += us;
        trialHandoffs++;
    }
}
