package dev.kvlab.harness.benchmark.internal.master;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The bench's warm-up: a minimum, then on while this JVM's JIT compilers are still busy, so that the window measures
 * compiled code rather than the compilers competing with it for the cores (on 2 loaded cores C2 keeps compiling
 * gRPC and Netty for half a minute). Busy: in the last second the compiler threads used more than
 * {@link #QUIET_MS} of CPU (Linux: their {@code /proc/self/task} times), or, where those cannot be read, more than that
 * much compilation finished. Quiet means {@link #QUIET_SECONDS} such seconds in a row. Never longer than the cap.
 * GC does not count: a put run's master keeps growing, and its collections are part of what is measured.
 */
final class BenchWarmup {

    static final long QUIET_MS = 50;
    static final int QUIET_SECONDS = 3;
    /** Clock ticks per second of {@code /proc} times (USER_HZ, 100 on Linux). */
    private static final long TICKS_PER_S = 100;

    private BenchWarmup() {}

    /** How long it warmed up, and whether the JIT was quiet at the end (false when capped, not waited for, or unobservable). */
    record Spent(Duration time, boolean jitQuiet) {}

    /** Sleeps through the warm-up: {@code min}, then at most {@code cap} more while the JIT is busy, or until {@code stop}. */
    static Spent await(Duration min, Duration cap, BooleanSupplier stop) throws InterruptedException {
        long t0 = System.nanoTime();
        Thread.sleep(min.toMillis());
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean threads = compilerCpuMillis() >= 0;
        if (cap.isZero() || !threads && (jit == null || !jit.isCompilationTimeMonitoringSupported()))
            return new Spent(since(t0), false);
        long until = System.nanoTime() + cap.toNanos();
        long busy = threads ? compilerCpuMillis() : jit.getTotalCompilationTime();
        int quiet = 0;
        while (!stop.getAsBoolean() && quiet < QUIET_SECONDS) {
            long left = until - System.nanoTime();
            if (left < 1_000_000_000L) { // the cap ends within this second: spend what is left, the JIT was still busy
                Thread.sleep(Math.max(0, left / 1_000_000));
                break;
            }
            Thread.sleep(1000);
            long b = threads ? compilerCpuMillis() : jit.getTotalCompilationTime();
            quiet = b - busy < QUIET_MS ? quiet + 1 : 0;
            busy = b;
        }
        return new Spent(since(t0), quiet >= QUIET_SECONDS);
    }

    private static Duration since(long t0) {
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    /** CPU time so far of this JVM's JIT compiler threads (C1, C2, JVMCI), in milliseconds; -1 where {@code /proc} does not tell. */
    static long compilerCpuMillis() {
        long ticks = 0;
        boolean any = false;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String comm;
                String stat;
                try {
                    comm = Files.readString(task.resolve("comm"));
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException gone) { // the thread ended meanwhile
                    continue;
                }
                if (!comm.contains("CompilerThre")) continue;
                // fields after "pid (comm) ": state is the first, utime the 12th, stime the 13th
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                any = true;
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return any ? ticks * 1000 / TICKS_PER_S : -1;
    }
}
