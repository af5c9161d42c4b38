package dev.kvlab.harness.benchmark.api;

import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportModels;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What a transport benchmark measured. Latencies are per batch (submit to completion), in microseconds,
 * from an HdrHistogram (3 significant digits).
 */
public record TransportBenchResult(
        TransportBenchSpec spec,
        boolean emulated,
        String copySemantics,
        double seconds,
        double warmupSeconds,
        long bytes,
        long batches,
        double p50Us,
        double p90Us,
        double p99Us,
        double p999Us,
        double maxUs,
        double meanUs,
        int cpus,
        double initiatorCpuSeconds,
        double targetCpuSeconds) {

    public double throughputBytesPerSecond() {
        return seconds > 0 ? bytes / seconds : 0;
    }

    /** The emulated link (rdma-emu only; its default when none was given), else null. */
    public LinkSpec effectiveLink() {
        if (!"rdma-emu".equals(spec.transport())) return spec.link();
        return spec.link() != null ? spec.link() : TransportModels.DEFAULT_EMULATED_LINK;
    }

    /** True when an emulated run stayed well below its link rate: the memory copies, not the NIC model, limited it. */
    public boolean copyBound() {
        LinkSpec l = effectiveLink();
        return emulated && l != null && throughputBytesPerSecond() < 0.9 * l.bytesPerSecond();
    }

    /** The object {@code --json} prints (stable key names, snake_case). */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("transport", spec.transport());
        m.put("emulated", emulated);
        if (emulated)
            m.put(
                    "label",
                    "EMULATED: " + spec.transport() + " models a NIC (" + effectiveLink()
                            + "); it is not real RDMA hardware");
        m.put("op", spec.op().name().toLowerCase(java.util.Locale.ROOT));
        m.put("block_size", spec.blockSize());
        m.put("batch_size", spec.batchSize());
        m.put("threads", spec.threads());
        m.put("duration_s", round(seconds, 4));
        m.put("warmup_s", round(warmupSeconds, 3));
        m.put("bytes", bytes);
        m.put("batches", batches);
        m.put("throughput_bytes_per_s", Math.round(throughputBytesPerSecond()));
        m.put("throughput_gb_per_s", round(throughputBytesPerSecond() / 1e9, 4));
        m.put("p50_us", round(p50Us, 1));
        m.put("p90_us", round(p90Us, 1));
        m.put("p99_us", round(p99Us, 1));
        m.put("p999_us", round(p999Us, 1));
        m.put("max_us", round(maxUs, 1));
        m.put("mean_us", round(meanUs, 1));
        LinkSpec link = effectiveLink();
        m.put("link", link == null ? null : link.toString());
        m.put("link_bytes_per_s", link == null ? null : Math.round(link.bytesPerSecond()));
        if (emulated) m.put("copy_bound", copyBound());
        m.put("segment_size", spec.segmentBytes());
        m.put("slice_size", spec.sliceSize());
        m.put("connections", spec.connections());
        m.put("target", spec.separateTarget() ? "separate process" : "same process");
        m.put("copy_semantics", copySemantics);
        m.put("cpus", cpus);
        m.put("initiator_cpu_s", round(initiatorCpuSeconds, 3));
        m.put("target_cpu_s", Double.isNaN(targetCpuSeconds) ? null : round(targetCpuSeconds, 3));
        double gb = bytes / 1e9;
        m.put(
                "cpu_s_per_gb",
                gb > 0
                        ? round((initiatorCpuSeconds + (Double.isNaN(targetCpuSeconds) ? 0 : targetCpuSeconds)) / gb, 4)
                        : null);
        return m;
    }

    private static double round(double v, int digits) {
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }

    /** The result as {@code kvlab bench transport} prints it: figures first, then what they mean when emulated. */
    public String text() {
        TransportBenchResult r = this;
        TransportBenchSpec s = r.spec();
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "transport %s%s  op %s  block %s  batch %d  threads %d  target %s%n",
                s.transport(),
                r.emulated() ? " (EMULATED)" : "",
                s.op().name().toLowerCase(Locale.ROOT),
                ByteSize.format(s.blockSize()),
                s.batchSize(),
                s.threads(),
                s.separateTarget() ? "separate process" : "same process"));
        b.append(String.format(
                Locale.ROOT,
                "throughput %.3f GB/s (%.3f GiB/s)  %d batches, %s in %.2f s (after %.2f s warm-up)%n",
                r.throughputBytesPerSecond() / 1e9,
                r.throughputBytesPerSecond() / (1L << 30),
                r.batches(),
                ByteSize.format(r.bytes()),
                r.seconds(),
                r.warmupSeconds()));
        b.append(String.format(
                Locale.ROOT,
                "batch latency us: p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f%n",
                r.p50Us(),
                r.p90Us(),
                r.p99Us(),
                r.p999Us(),
                r.maxUs(),
                r.meanUs()));
        b.append("copies: ").append(r.copySemantics()).append(System.lineSeparator());
        if (r.emulated()) {
            b.append("NOTE: these figures are EMULATED by a NIC model (" + r.effectiveLink()
                            + "), not measured on RDMA hardware.")
                    .append(System.lineSeparator());
            if (r.copyBound())
                b.append(String.format(
                        Locale.ROOT,
                        "NOTE: below the emulated link's %.3f GB/s: the shared-memory copies (CPU), not the NIC model, limited this run.%n",
                        r.effectiveLink().bytesPerSecond() / 1e9));
        }
        return b.toString();
    }
}
