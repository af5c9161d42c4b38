package dev.kvlab.harness.benchmark.internal;

import dev.kvlab.harness.benchmark.api.TransportBenchResult;
import dev.kvlab.harness.benchmark.api.TransportBenchSpec;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.api.TransportProfile;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Measures live transports and fits a {@link dev.kvlab.transport.api.LinearTransportModel} to each:
 *
 * <ul>
 *   <li>latency: median time of a batch of one {@value #SMALL}-byte request, minus one per-request cost;</li>
 *   <li>per-request cost: (median of a batch of {@value #MANY} small requests − median of one) / ({@value #MANY} − 1);</li>
 *   <li>stream bandwidth: one thread, batches of 16 × 1 MiB: bytes / (mean batch time − latency − requests × per-request);</li>
 *   <li>aggregate bandwidth: the same with two threads (total bytes / s), never below the stream bandwidth.</li>
 * </ul>
 *
 * Every measurement runs against a target in its own process (except {@code local}), after a warm-up.
 */
public final class Calibration {

    static final int SMALL = 64;
    static final int MANY = 32;
    static final long LARGE_BLOCK = 1L << 20;
    static final int LARGE_BATCH = 16;
    static final long SEGMENT = TransportBenchSpec.defaultSegmentBytes(LARGE_BLOCK, LARGE_BATCH, 2);

    private final Transports transports;
    private final Duration duration;
    private final LinkSpec link;
    private final Consumer<String> progress;
    private final Clock clock;

    public Calibration(
            Transports transports, Duration duration, LinkSpec link, Consumer<String> progress, Clock clock) {
        this.transports = transports;
        this.duration = duration;
        this.link = link;
        this.progress = progress;
        this.clock = clock;
    }

    /** Measures {@code names} in order and returns the profile (not yet written). */
    public TransportProfile run(List<String> names) throws Exception {
        Map<String, TransportProfile.Entry> models = new LinkedHashMap<>();
        for (String name : names) models.put(name, measure(name));
        String note = "measured by kvlab calibrate on this machine (loopback / same host); " + duration.toMillis()
                + " ms per measurement"
                + (names.contains("rdma-emu")
                        ? "; rdma-emu figures are EMULATED (NIC model " + (link != null ? link : "default") + ")"
                        : "");
        return new TransportProfile(
                TransportProfile.KIND,
                TransportProfile.VERSION,
                Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString(),
                machine(),
                note,
                models);
    }

    private TransportBenchSpec spec(String name, long block, int batch, int threads) {
        return new TransportBenchSpec(
                name,
                block,
                batch,
                threads,
                duration,
                Opcode.READ,
                "rdma-emu".equals(name) ? link : null,
                SEGMENT,
                TransportConfig.DEFAULT_SLICE_SIZE,
                TransportConfig.defaults().connectionsPerPeer());
    }

    TransportProfile.Entry measure(String name) throws Exception {
        TransportBenchSpec one = spec(name, SMALL, 1, 1);
        TransportBenchSpec many = spec(name, SMALL, MANY, 1);
        TransportBenchSpec stream = spec(name, LARGE_BLOCK, LARGE_BATCH, 1);
        TransportBenchSpec aggregate = spec(name, LARGE_BLOCK, LARGE_BATCH, 2);
        progress.accept("calibrating " + name + " ...");
        try (TransportBench session = TransportBench.open(transports, name, stream.config(), SEGMENT)) {
            TransportBenchResult r1 = session.run(one);
            TransportBenchResult rn = session.run(many);
            TransportBenchResult rs = session.run(stream);
            TransportBenchResult ra = session.run(aggregate);
            double perRequestUs = Math.max(0, (rn.p50Us() - r1.p50Us()) / (MANY - 1));
            double latencyUs = Math.max(0, r1.p50Us() - perRequestUs);
            double batchBytes = (double) LARGE_BLOCK * LARGE_BATCH;
            double wireUs = rs.meanUs() - latencyUs - LARGE_BATCH * perRequestUs;
            double streamBw = wireUs > 0 ? batchBytes / (wireUs / 1e6) : rs.throughputBytesPerSecond();
            double aggregateBw = Math.max(streamBw, ra.throughputBytesPerSecond());
            String source = String.format(
                    Locale.ROOT,
                    "kvlab calibrate: p50 of %dB x1 = %.1fus, p50 of %dB x%d = %.1fus, 1MiB x16 1 thread = %.3f GB/s (mean batch %.0fus),"
                            + " 2 threads = %.3f GB/s; READ, target in %s%s",
                    SMALL,
                    r1.p50Us(),
                    SMALL,
                    MANY,
                    rn.p50Us(),
                    rs.throughputBytesPerSecond() / 1e9,
                    rs.meanUs(),
                    ra.throughputBytesPerSecond() / 1e9,
                    one.separateTarget() ? "its own process" : "this process",
                    rs.emulated()
                            ? "; EMULATED (NIC model " + rs.effectiveLink()
                                    + (rs.copyBound()
                                            ? ", copy-bound: the emulated link is faster than"
                                                    + " this machine's memory copies"
                                            : "")
                                    + ")"
                            : "");
            progress.accept(String.format(
                    Locale.ROOT,
                    "  %s: latency %.1f us, per request %.2f us, stream %.3f GB/s, aggregate %.3f GB/s%s",
                    name,
                    latencyUs,
                    perRequestUs,
                    streamBw / 1e9,
                    aggregateBw / 1e9,
                    rs.emulated()
                            ? " (emulated"
                                    + (rs.copyBound() ? "; copy-bound below the " + rs.effectiveLink() + " link" : "")
                                    + ")"
                            : ""));
            return new TransportProfile.Entry(
                    rs.emulated(),
                    round(latencyUs),
                    round(perRequestUs),
                    Math.round(streamBw),
                    Math.round(aggregateBw),
                    source);
        }
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /** What the figures were measured on. */
    public static Map<String, String> machine() {
        Map<String, String> m = new LinkedHashMap<>();
        try {
            m.put("host", InetAddress.getLocalHost().getHostName());
        } catch (IOException e) {
            m.put("host", "unknown");
        }
        m.put(
                "os",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"));
        m.put("cpus", Integer.toString(Runtime.getRuntime().availableProcessors()));
        m.put("cpu", cpuModel());
        m.put("java", System.getProperty("java.vm.name") + " " + Runtime.version());
        return m;
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name"))
                    return line.substring(line.indexOf(':') + 1).strip();
            }
        } catch (IOException | RuntimeException ignored) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }
}
