package dev.kvlab.harness.benchmark.internal.master;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time of this JVM's threads by kind, read from Linux's {@code /proc/self/task} (every thread, the JVM's own GC and
 * JIT threads included, which {@code ThreadMXBean} does not list): what tells a bench where its CPU went, e.g. the
 * oplog's threads against gRPC's. Elsewhere (no {@code /proc}) a snapshot is empty.
 */
final class ThreadCpu {

    /** Clock ticks per second of {@code /proc} times (USER_HZ, 100 on Linux). */
    static final long TICKS_PER_S = 100;

    /** One thread: its name as the kernel has it (at most 15 characters) and its user + system ticks. */
    record Task(String comm, long ticks) {}

    private ThreadCpu() {}

    /** Every thread of this process now, by thread id; empty where {@code /proc} cannot be read. */
    static Map<Long, Task> snapshot() {
        Map<Long, Task> out = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException gone) { // the thread ended meanwhile
                    continue;
                }
                // "tid (comm) state ...": utime is the 12th field after the comm, stime the 13th
                int open = stat.indexOf('('), close = stat.lastIndexOf(')');
                String[] f = stat.substring(close + 2).split(" ");
                out.put(
                        Long.parseLong(task.getFileName().toString()),
                        new Task(stat.substring(open + 1, close), Long.parseLong(f[11]) + Long.parseLong(f[12])));
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        return out;
    }

    /**
     * Seconds of CPU each kind of thread ({@link #kind}) used from {@code before} to {@code after}; threads that ended
     * in between are not counted (their last times are gone), threads that started count from zero.
     */
    static Map<String, Double> secondsByKind(Map<Long, Task> before, Map<Long, Task> after) {
        Map<String, Long> ticks = new TreeMap<>();
        after.forEach((tid, t) -> {
            Task b = before.get(tid);
            long d = t.ticks() - (b != null && b.comm().equals(t.comm()) ? b.ticks() : 0);
            if (d > 0) ticks.merge(kind(t.comm()), d, Long::sum);
        });
        Map<String, Double> out = new TreeMap<>();
        ticks.forEach((k, v) -> out.put(k, (double) v / TICKS_PER_S));
        return out;
    }

    /**
     * What a thread (by its kernel name) does: {@code grpc} (the control plane's transport and executor threads, the
     * server's and the clients' alike), {@code oplog-shipper} (the leader's batching and encoding for etcd),
     * {@code etcd-http} (a JDK {@code HttpClient}'s threads: kvlab's etcd client no longer has any, its calls run on the
     * oplog's and the watch's own threads, so this is 0 unless something else in the process uses one), {@code standby} (the standby's watch reader: decoding and applying batches), {@code ha} (election, lease,
     * publishing), {@code gc}, {@code jit}, {@code master} (housekeeping), or {@code other}.
     */
    static String kind(String comm) {
        if (comm.startsWith("grpc-")) return "grpc";
        if (comm.startsWith("kvlab-oplog-shi")) return "oplog-shipper";
        if (comm.startsWith("HttpClient-")) return "etcd-http";
        if (comm.startsWith("kvlab-etcd-watc")
                || comm.startsWith("kvlab-oplog-ref")
                || comm.startsWith("kvlab-standby")) return "standby";
        if (comm.startsWith("kvlab-ha-")) return "ha";
        if (comm.startsWith("GC Thread") || comm.startsWith("VM Thread") || comm.startsWith("G1 ")) return "gc";
        if (comm.contains("CompilerThre")) return "jit";
        if (comm.startsWith("kvlab-master-")) return "master";
        return "other";
    }
}
