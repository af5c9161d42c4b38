package dev.kvlab.harness.benchmark.api;

import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportModels;
import java.util.Locale;

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
    public TransportBenchJson toJson() {
        LinkSpec link = effectiveLink();
        double gb = bytes / 1e9;
        return new TransportBenchJson(
                spec.transport(),
                emulated,
                emulated
                        ? "EMULATED: " + spec.transport() + " models a NIC (" + link + "); it is not real RDMA hardware"
                        : null,
                spec.op().name().toLowerCase(Locale.ROOT),
                spec.blockSize(),
                spec.batchSize(),
                spec.threads(),
                round(seconds, 4),
                round(warmupSeconds, 3),
                bytes,
                batches,
                Math.round(throughputBytesPerSecond()),
                round(throughputBytesPerSecond() / 1e9, 4),
                round(p50Us, 1),
                round(p90Us, 1),
                round(p99Us, 1),
                round(p999Us, 1),
                round(maxUs, 1),
                round(meanUs, 1),
                link == null ? null : link.toString(),
                link == null ? null : Math.round(link.bytesPerSecond()),
                emulated ? copyBound() : null,
                spec.segmentBytes(),
                spec.sliceSize(),
                spec.connections(),
                spec.separateTarget() ? "separate process" : "same process",
                copySemantics,
                cpus,
                round(initiatorCpuSeconds, 3),
                Double.isNaN(targetCpuSeconds) ? null : round(targetCpuSeconds, 3),
                gb > 0
                        ? round((initiatorCpuSeconds + (Double.isNaN(targetCpuSeconds) ? 0 : targetCpuSeconds)) / gb, 4)
                        : null);
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
