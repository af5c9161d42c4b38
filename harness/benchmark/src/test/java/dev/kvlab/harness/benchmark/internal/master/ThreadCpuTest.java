package dev.kvlab.harness.benchmark.internal.master;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where a bench's CPU went: threads sorted by kind, the window's differences, and this JVM's threads read from /proc. */
class ThreadCpuTest {

    @Test
    void threadsAreSortedByWhatTheyDo() {
        assertThat(ThreadCpu.kind("grpc-default-wo")).isEqualTo("grpc");
        assertThat(ThreadCpu.kind("kvlab-oplog-shi")).isEqualTo("oplog-shipper");
        assertThat(ThreadCpu.kind("HttpClient-3-Se")).isEqualTo("etcd-http");
        assertThat(ThreadCpu.kind("kvlab-etcd-watc")).isEqualTo("standby");
        assertThat(ThreadCpu.kind("kvlab-ha-bench-")).isEqualTo("ha");
        assertThat(ThreadCpu.kind("GC Thread#1")).isEqualTo("gc");
        assertThat(ThreadCpu.kind("C2 CompilerThre")).isEqualTo("jit");
        assertThat(ThreadCpu.kind("main")).isEqualTo("other");
    }

    @Test
    void aWindowCountsWhatEachThreadUsedInIt() {
        Map<Long, ThreadCpu.Task> before = Map.of(
                1L, new ThreadCpu.Task("grpc-default-wo", 100),
                2L, new ThreadCpu.Task("grpc-default-wo", 50),
                3L, new ThreadCpu.Task("kvlab-oplog-shi", 7),
                4L, new ThreadCpu.Task("GC Thread#0", 9)); // ends in the window: not counted
        Map<Long, ThreadCpu.Task> after = Map.of(
                1L, new ThreadCpu.Task("grpc-default-wo", 130),
                2L, new ThreadCpu.Task("grpc-default-wo", 60),
                3L, new ThreadCpu.Task("kvlab-oplog-shi", 7),
                5L, new ThreadCpu.Task("HttpClient-2-Wo", 25), // started in the window: from zero
                6L, new ThreadCpu.Task("C1 CompilerThre", 0));
        assertThat(ThreadCpu.secondsByKind(before, after))
                .containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of("etcd-http", 0.25, "grpc", 0.4)));
    }

    @Test
    void thisJvmsThreadsAreReadFromProc() throws Exception {
        if (!Files.isDirectory(Path.of("/proc/self/task"))) return; // not Linux: nothing to read
        Map<Long, ThreadCpu.Task> before = ThreadCpu.snapshot();
        double[] x = {0};
        Thread spinner = Thread.ofPlatform().name("kvlab-test-spin").start(() -> {
            long until = System.nanoTime() + 300_000_000L;
            while (System.nanoTime() < until) x[0] += Math.sqrt(x[0] + 1);
        });
        Thread.sleep(100);
        assertThat(ThreadCpu.snapshot().values())
                .anySatisfy(t -> assertThat(t.comm()).isEqualTo("kvlab-test-spin"));
        spinner.join(); // its times are gone with it: spin on this thread, which lives on, instead
        Map<Long, ThreadCpu.Task> mid = ThreadCpu.snapshot();
        // spin until this thread has used 0.3 s of CPU by the JVM's own count (a loaded machine gives it less per
        // second)
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpu0 = mx.getCurrentThreadCpuTime(), wallCap = System.nanoTime() + 30_000_000_000L;
        while (mx.getCurrentThreadCpuTime() - cpu0 < 300_000_000L && System.nanoTime() < wallCap)
            for (int i = 0; i < 10_000; i++) x[0] += Math.sqrt(x[0] + 1);
        assertThat(x[0]).isPositive();
        assertThat(ThreadCpu.secondsByKind(mid, ThreadCpu.snapshot()).get("other"))
                .as("this thread's 0.3 s of spinning")
                .isGreaterThanOrEqualTo(0.2);
        assertThat(before).isNotEmpty();
    }
}
