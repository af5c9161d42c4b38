package dev.kvlab.harness.benchmark.internal;

import dev.kvlab.harness.benchmark.api.TargetCalibrationResult;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.ReplicateConfig;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Calibration against a running store ({@code kvlab calibrate --target kvlab://HOST:PORT}): what a client on this
 * host sees of the store's network, through the store's own client and its real transport.
 *
 * <ul>
 *   <li>{@code rtt_us}: median of one {@code exists} of one key: one control-plane round trip to the master;</li>
 *   <li>{@code latency_us}: median of one get of a {@value #SMALL}-byte object (replica lookup + one READ + checks);</li>
 *   <li>{@code per_request_us}: (median of a batch get of {@value #MANY} small objects − {@code latency_us}) / ({@value #MANY} − 1);</li>
 *   <li>{@code stream_bandwidth_bytes_per_s}: one thread, batch gets of {@value #BATCH} × 1 MiB, bytes moved / wall time;</li>
 *   <li>{@code bandwidth_bytes_per_s}: {@value #THREADS} threads the same way (the link's delivered payload rate).</li>
 * </ul>
 *
 * The objects it reads are its own (written first under a fresh prefix, removed after), every read is checked
 * (a non-hit is an error, not a sample), and bandwidths are what was moved, never a fit.
 */
public final class TargetCalibration {

    static final int SMALL = 64;
    static final int MANY = 32;
    static final long LARGE = 1L << 20;
    static final int BATCH = 16;
    static final int LARGE_OBJECTS = 32;
    static final int THREADS = 4;

    private final Duration duration;
    private final Consumer<String> progress;

    public TargetCalibration(Duration duration, Consumer<String> progress) {
        this.duration = duration;
        this.progress = progress;
    }

    /** Measures {@code store} (named {@code target} in the result) and removes what it wrote. */
    public TargetCalibrationResult run(String target, String transport, boolean emulated, KvBackend store)
            throws InterruptedException {
        String prefix = "calibrate/" + UUID.randomUUID().toString().substring(0, 8) + "/";
        List<String> small = new ArrayList<>(), large = new ArrayList<>();
        for (int i = 0; i < MANY; i++) small.add(prefix + "s" + i);
        for (int i = 0; i < LARGE_OBJECTS; i++) large.add(prefix + "l" + i);
        progress.accept("calibrating " + target + ": writing " + MANY + " x " + SMALL + " B and " + LARGE_OBJECTS
                + " x 1 MiB ...");
        try {
            load(store, small, SMALL);
            load(store, large, LARGE);
            MemorySegment one = store.allocateBuffer(SMALL);
            List<MemorySegment> smalls = buffers(store, MANY, SMALL);
            List<String> first = List.of(small.getFirst());
            double rtt = Probe.latency(duration, () -> {
                        if (!store.batchExists(first)[0])
                            throw new IllegalStateException(
                                    target + " lost the calibration object " + first.getFirst());
                    })
                    .p50Us();
            double get1 = Probe.latency(duration, () -> check(List.of(store.getInto(small.getFirst(), one)), first))
                    .p50Us();
            double getMany = Probe.latency(duration, () -> check(store.batchGetInto(small, smalls), small))
                    .p50Us();
            double perRequest = Math.max(0, (getMany - get1) / (MANY - 1));
            progress.accept(String.format(
                    Locale.ROOT, "  rtt %.1f us, small get %.1f us, per request %.2f us", rtt, get1, perRequest));
            Probe.Throughput stream = Probe.throughput(duration, 1, t -> bulkReader(store, large, t));
            Probe.Throughput aggregate = Probe.throughput(duration, THREADS, t -> bulkReader(store, large, t));
            double bw = Math.max(stream.bytesPerSecond(), aggregate.bytesPerSecond());
            progress.accept(String.format(
                    Locale.ROOT,
                    "  bandwidth: 1 thread %.3f Gbit/s, %d threads %.3f Gbit/s (payload)",
                    stream.bytesPerSecond() * 8 / 1e9,
                    THREADS,
                    aggregate.bytesPerSecond() * 8 / 1e9));
            String source = String.format(
                    Locale.ROOT,
                    "kvlab calibrate --target %s: exists p50 %.1fus, %dB get p50 %.1fus, %dB x%d get p50 %.1fus,"
                            + " 1MiB x%d batch gets: 1 thread %.3f GB/s, %d threads %.3f GB/s (%d bytes in %.2f s)%s",
                    target,
                    rtt,
                    SMALL,
                    get1,
                    SMALL,
                    MANY,
                    getMany,
                    BATCH,
                    stream.bytesPerSecond() / 1e9,
                    THREADS,
                    aggregate.bytesPerSecond() / 1e9,
                    aggregate.bytes(),
                    aggregate.seconds(),
                    emulated ? "; EMULATED transport" : "");
            return new TargetCalibrationResult(
                    target,
                    transport,
                    emulated,
                    round(rtt),
                    round(get1),
                    round(perRequest),
                    Math.round(stream.bytesPerSecond()),
                    Math.round(bw),
                    THREADS,
                    stream.bytes() + aggregate.bytes(),
                    TargetCalibrationResult.link(bw, rtt),
                    source);
        } finally {
            for (String k : small) quietRemove(store, k);
            for (String k : large) quietRemove(store, k);
        }
    }

    private static void load(KvBackend store, List<String> keys, long size) {
        List<MemorySegment> vals = buffers(store, keys.size(), size);
        for (int i = 0; i < keys.size(); i++) KeyedPayload.fill(keys.get(i), vals.get(i), 0, size);
        for (int c = 0; c < keys.size(); c += BATCH) {
            int n = Math.min(BATCH, keys.size() - c);
            List<PutStatus> st =
                    store.batchPut(keys.subList(c, c + n), vals.subList(c, c + n), ReplicateConfig.replicas(1));
            for (int i = 0; i < n; i++)
                if (st.get(i) != PutStatus.OK)
                    throw new IllegalStateException(
                            "could not write the calibration object " + keys.get(c + i) + ": " + st.get(i)
                                    + (st.get(i) == PutStatus.NO_SPACE
                                            ? " (the store has no room for it: has it storage nodes with free segments? `kvlab store node --master ...`)"
                                            : ""));
        }
    }

    private static List<MemorySegment> buffers(KvBackend store, int n, long size) {
        List<MemorySegment> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(store.allocateBuffer(size));
        return out;
    }

    /** One reader thread's loop body: batch gets of {@link #BATCH} large objects, rotating through them; returns bytes moved per call. */
    private static Probe.Call bulkReader(KvBackend store, List<String> large, int thread) {
        List<MemorySegment> bufs = buffers(store, BATCH, LARGE);
        int[] next = {thread * BATCH % large.size()};
        return () -> {
            List<String> keys = new ArrayList<>(BATCH);
            for (int i = 0; i < BATCH; i++) keys.add(large.get((next[0] + i) % large.size()));
            next[0] = (next[0] + BATCH) % large.size();
            check(store.batchGetInto(keys, bufs), keys);
            return BATCH * LARGE;
        };
    }

    private static void check(List<GetResult> rs, List<String> keys) {
        for (int i = 0; i < rs.size(); i++)
            if (!rs.get(i).isHit())
                throw new IllegalStateException("get of calibration object " + keys.get(i) + ": "
                        + rs.get(i).status() + " " + rs.get(i));
    }

    private static void quietRemove(KvBackend store, String key) {
        try {
            store.remove(key);
        } catch (RuntimeException ignored) {
            // best effort: a leftover object is evicted like any other
        }
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
