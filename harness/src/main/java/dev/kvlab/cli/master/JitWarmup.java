package dev.kvlab.cli.master;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The bench's warm-up: a minimum, then on while this JVM's JIT compilers are still busy, so that the window measures
 * compiled code rather than the compilers competing with it for the cores (on 2 loaded cores C2 keeps compiling
 * gRPC and Netty for half a minute). Busy: in the last second, more than {@link #QUIET_COMPILE_MS} of compilation
 * finished, or the JVM's own threads (compilers, GC: the process's CPU less that of its Java threads) used more than
 * {@link #QUIET_VM_CPU_MS}. Quiet means {@link #QUIET_SECONDS} such seconds in a row. Never longer than the cap.
 */
final class JitWarmup {

    static final long QUIET_COMPILE_MS = 50;
    static final long QUIET_VM_CPU_MS = 100;
    static final int QUIET_SECONDS = 3;

    private JitWarmup() {}

    /** How long it warmed up, and whether the JIT was quiet at the end (false when capped or unobservable). */
    record Spent(Duration time, boolean jitQuiet) {}

    /** Sleeps through the warm-up: {@code min}, then at most {@code cap} more while the JIT is busy, or until {@code stop}. */
    static Spent await(Duration min, Duration cap, BooleanSupplier stop) throws InterruptedException {
        long t0 = System.nanoTime();
        Thread.sleep(min.toMillis());
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean observable = jit != null && jit.isCompilationTimeMonitoringSupported() && vmCpuNanos() >= 0;
        if (!observable || cap.isZero()) return new Spent(since(t0), false);
        long until = System.nanoTime() + cap.toNanos();
        long compiled = jit.getTotalCompilationTime(), vm = vmCpuNanos();
        int quiet = 0;
        while (!stop.getAsBoolean() && quiet < QUIET_SECONDS) {
            long left = until - System.nanoTime();
            if (left < 1_000_000_000L) { // the cap ends within this second: spend what is left, the JIT was still busy
                Thread.sleep(Math.max(0, left / 1_000_000));
                break;
            }
            Thread.sleep(1000);
            long c = jit.getTotalCompilationTime(), v = vmCpuNanos();
            quiet = c - compiled < QUIET_COMPILE_MS && v - vm < QUIET_VM_CPU_MS * 1_000_000 ? quiet + 1 : 0;
            compiled = c;
            vm = v;
        }
        return new Spent(since(t0), quiet >= QUIET_SECONDS);
    }

    private static Duration since(long t0) {
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    /** CPU time of the JVM's own threads (JIT compilers, GC, VM thread): the process's less its Java threads'; -1 when unknown. */
    private static long vmCpuNanos() {
        if (!(ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)) return -1;
        ThreadMXBean tm = ManagementFactory.getThreadMXBean();
        if (!tm.isThreadCpuTimeSupported() || !tm.isThreadCpuTimeEnabled()) return -1;
        long process = os.getProcessCpuTime(), threads = 0;
        for (long id : tm.getAllThreadIds()) threads += Math.max(0, tm.getThreadCpuTime(id));
        return process < 0 ? -1 : process - threads;
    }
}
