package dev.kvlab.harness.benchmark.internal.store;

import dev.kvlab.harness.benchmark.api.BenchFailedException;
import dev.kvlab.harness.benchmark.api.StoreBenchResult;
import dev.kvlab.harness.benchmark.api.StoreBenchSettings;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.GetStatus;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.ReplicateConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * A closed-loop store benchmark: {@code clients} threads, each issuing one operation after the other through
 * one {@link MeasuredBackend}. A {@code get} run first loads its keys (unmeasured; unless told not to), then reads uniformly random
 * keys; a {@code put} run writes fresh keys {@code k0, k1, …} (the first {@code keys} of them are the ones a get
 * run reads). Values are the keys' {@link KeyedPayload} content, generated outside the timed section.
 */
public final class StoreBench {

    private StoreBench() {}

    public static String key(long valueSize, long i) {
        return "bench/" + valueSize + "/k" + i;
    }

    public static StoreBenchResult run(StoreBenchSettings s, KvBackend backend, PrintStream log)
            throws InterruptedException, IOException {
        MeasuredBackend m = new MeasuredBackend(backend, s.verify());
        boolean get = "get".equals(s.op());
        preflight(s, m);
        if (get && s.load()) {
            int present = present(s, m);
            if (present == 0) load(s, m, log);
            else if (log != null)
                log.printf(
                        "the store holds %d of the %d keys already: reading them as they are, not loading (%s)%n",
                        present,
                        s.keys(),
                        present == s.keys()
                                ? "a put run's keys"
                                : "the " + (s.keys() - present) + " missing ones are misses: what the store lost");
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (int c = 0; c < s.clients(); c++) {
            int client = c;
            Thread t = Thread.ofPlatform().name("kvlab-bench-client-" + c).start(() -> {
                try {
                    MemorySegment buf = m.allocateBuffer(s.valueSize());
                    if (get) getLoop(s, m, buf, client, stop);
                    else putLoop(s, m, buf, client, stop);
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                    stop.set(true);
                }
            });
            threads.add(t);
        }
        Thread.sleep(s.warmup().toMillis());
        m.latency().getIntervalHistogram(); // drop the warm-up
        long t0 = System.nanoTime();
        long startMs = System.currentTimeMillis();
        m.recording(true);
        long until = t0 + s.duration().toNanos();
        while (!stop.get() && System.nanoTime() < until)
            Thread.sleep(Math.max(1, Math.min(50, (until - System.nanoTime()) / 1_000_000)));
        m.recording(false);
        long t1 = System.nanoTime();
        stop.set(true);
        for (Thread t : threads) t.join(30_000);
        if (!failures.isEmpty())
            throw new IllegalStateException("a bench client failed: " + failures.getFirst(), failures.getFirst());
        Histogram h = m.latency().getIntervalHistogram();
        double secs = (t1 - t0) / 1e9;
        if (s.hlog() != null) writeHlog(s.hlog(), h, startMs, secs);
        long ops = m.ops.sum();
        if (ops == 0)
            throw new BenchFailedException(
                    s.backend() + ": no operation completed in " + s.duration() + " (the store did not answer)");
        if (m.errors.sum() == ops)
            throw new BenchFailedException(s.backend() + ": every one of " + ops + " " + s.op() + "s failed"
                    + (m.firstError() == null ? "" : ": " + reason(m.firstError())));
        return new StoreBenchResult(
                s.backend(),
                backend.name(),
                s.transport(),
                s.emulated(),
                s.op(),
                s.valueSize(),
                s.clients(),
                s.keys(),
                s.verify(),
                round(secs),
                ops,
                round(ops / secs),
                round(m.bytes.sum() / secs),
                round(h.getMean()),
                h.getValueAtPercentile(50),
                h.getValueAtPercentile(90),
                h.getValueAtPercentile(99),
                h.getValueAtPercentile(99.9),
                h.getMaxValue(),
                m.hits.sum(),
                m.misses.sum(),
                m.errors.sum(),
                m.wrong.sum(),
                m.leaseExpired.sum(),
                m.checksum.sum(),
                m.content.sum(),
                backend.copySemantics());
    }

    /**
     * One get of a key no bench writes, before anything else: an unreachable store, a refused token or a store that
     * does not answer in time fails the bench here, within one call's timeout, instead of hundreds of failing loads.
     */
    static void preflight(StoreBenchSettings s, MeasuredBackend m) {
        MemorySegment buf = m.allocateBuffer(Math.min(s.valueSize(), 4096));
        GetResult r;
        try {
            r = m.getInto("bench/preflight/" + s.valueSize(), buf);
        } catch (RuntimeException e) {
            throw new BenchFailedException(s.backend() + ": " + reason(String.valueOf(e.getMessage())));
        }
        if (r.status() == GetStatus.ERROR || r.status() == GetStatus.TIMEOUT)
            throw new BenchFailedException(s.backend() + ": " + reason(r.detail()));
    }

    /** A failure detail with what it means in front: authentication, unreachable or timeout ({@link RemoteStore#reason}). */
    static String reason(String detail) {
        return RemoteStore.reason(detail, false);
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /**
     * How many of the run's keys the store holds now (one unmeasured get each): a get run loads only a store holding
     * none, so that reading after a put run, a node kill or a master failover reads what survived, not a reload of it.
     */
    static int present(StoreBenchSettings s, MeasuredBackend m) {
        MemorySegment buf = m.allocateBuffer(s.valueSize());
        int n = 0;
        for (int i = 0; i < s.keys(); i++)
            if (m.getInto(key(s.valueSize(), i), buf).status() == GetStatus.HIT) n++;
        return n;
    }

    private static void load(StoreBenchSettings s, MeasuredBackend m, PrintStream log) throws InterruptedException {
        long t0 = System.nanoTime();
        List<Thread> ts = new ArrayList<>();
        long[] failed = new long[s.clients()];
        for (int c = 0; c < s.clients(); c++) {
            int client = c;
            ts.add(Thread.ofPlatform().name("kvlab-bench-load-" + c).start(() -> {
                MemorySegment buf = m.allocateBuffer(s.valueSize());
                for (int i = client; i < s.keys(); i += s.clients()) {
                    String k = key(s.valueSize(), i);
                    KeyedPayload.fill(k, buf, 0, s.valueSize());
                    if (!m.put(k, buf, ReplicateConfig.DEFAULT).isStored()) failed[client]++;
                }
            }));
        }
        for (Thread t : ts) t.join();
        long f = 0;
        for (long x : failed) f += x;
        if (f == s.keys())
            throw new BenchFailedException(s.backend() + ": loading failed: all " + f
                    + " puts failed (are storage nodes mounted, reachable on their data port, "
                    + "and does KVLAB_STORE_TOKEN match theirs?)");
        if (log != null)
            log.printf(
                    "loaded %d keys of %d bytes in %.1f s%s%n",
                    s.keys() - f,
                    s.valueSize(),
                    (System.nanoTime() - t0) / 1e9,
                    f > 0 ? " (" + f + " puts failed: they will be misses)" : "");
    }

    private static void getLoop(
            StoreBenchSettings s, MeasuredBackend m, MemorySegment buf, int client, AtomicBoolean stop) {
        SplittableRandom r = new SplittableRandom(0x5EEDL + client);
        while (!stop.get()) {
            String k = key(s.valueSize(), r.nextInt(s.keys()));
            m.getInto(k, buf, System.nanoTime());
        }
    }

    private static void putLoop(
            StoreBenchSettings s, MeasuredBackend m, MemorySegment buf, int client, AtomicBoolean stop) {
        for (long j = 0; !stop.get(); j++) {
            String k = key(s.valueSize(), client + j * s.clients());
            KeyedPayload.fill(k, buf, 0, s.valueSize());
            m.put(k, buf, ReplicateConfig.DEFAULT, System.nanoTime());
        }
    }

    private static void writeHlog(Path file, Histogram h, long startMs, double secs) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        try (PrintStream out = new PrintStream(Files.newOutputStream(file))) {
            HistogramLogWriter w = new HistogramLogWriter(out);
            w.outputComment("kvlab bench store latency, microseconds");
            w.outputStartTime(startMs);
            w.outputBaseTime(startMs);
            w.outputLogFormatVersion();
            w.outputLegend();
            h.setStartTimeStamp(startMs);
            h.setEndTimeStamp(startMs + (long) (secs * 1000));
            w.outputIntervalHistogram(h);
        }
    }
}
