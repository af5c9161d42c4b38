package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.HandoverRecord;
import dev.kvlab.harness.api.IntervalHistogram;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.config.Mode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The files of one cell × replicate ({@code cells/<cell>/r<k>/}). A fixed-load run: one {@code .hlog} per
 * {@link Metric}, {@code requests.csv}, {@code cell.json} and, where requests were handed from prefill to decode
 * instances, {@code handovers.csv}. A capacity-search probe (cell id {@code <cell>@<load>},
 * the bulk of a search's runs): one tagged {@code run.hlog}, {@code requests.csv.gz} (which the runner may drop once
 * the search has ended, {@code bundle.requests}), its record ({@code cell.json} without the config) the log's
 * {@link #CELL_COMMENT} line; {@link RunFiles} reads either. Written into {@code cells/<cell>/.r<k>.tmp/}, fsynced, and renamed
 * to {@code r<k>}: a replicate directory that exists is complete.
 */
public final class CellFiles {

    public static final String CELL_JSON = "cell.json";
    public static final String REQUESTS_CSV = "requests.csv";
    /** A capacity-search probe's request records, gzipped (kept as {@code bundle.requests} says). */
    public static final String REQUESTS_CSV_GZ = "requests.csv.gz";

    /** A fixed-load run's disaggregated requests, part by part to their first token ({@link HandoverRecord}); PD cells only. */
    public static final String HANDOVERS_CSV = "handovers.csv";

    /** A capacity-search probe's metrics: one interval log, each interval tagged with its metric. */
    public static final String RUN_HLOG = "run.hlog";

    private CellFiles() {}

    public static Path dir(Path bundle, String cell, int replicate) {
        return bundle.resolve("cells").resolve(cell).resolve("r" + replicate);
    }

    public static void write(Path bundle, CellRun run, CellResult result) throws IOException {
        Path cellDir = bundle.resolve("cells").resolve(run.cell());
        Files.createDirectories(cellDir);
        Path tmp = cellDir.resolve(".r" + run.replicate() + ".tmp");
        Durable.deleteTree(tmp);
        Files.createDirectory(tmp);
        String clock = run.mode() == Mode.SIM ? "virtual (sim)" : "wall (live)";
        if (probe(run.cell())) {
            Durable.writeNew(
                    tmp.resolve(RUN_HLOG),
                    HlogFile.writeTagged(
                            whole(result),
                            run.cell(),
                            run.replicate(),
                            clock,
                            CELL_COMMENT + BundleJson.compact(cellJsonNode(run, result, false))));
            result.requestLog().writeGzipTo(tmp.resolve(REQUESTS_CSV_GZ));
            Durable.fsyncFile(tmp.resolve(REQUESTS_CSV_GZ));
        } else {
            for (Metric m : Metric.values()) {
                List<IntervalHistogram> iv = result.intervals().getOrDefault(m, List.of());
                Durable.writeNew(
                        tmp.resolve(m.id() + ".hlog"), HlogFile.write(m, iv, run.cell(), run.replicate(), clock));
            }
            result.requestLog().writeTo(tmp.resolve(REQUESTS_CSV));
            Durable.fsyncFile(tmp.resolve(REQUESTS_CSV));
            if (!result.handovers().isEmpty())
                Durable.writeNew(
                        tmp.resolve(HANDOVERS_CSV),
                        HandoverRecord.csv(result.handovers()).getBytes(StandardCharsets.UTF_8));
            Durable.writeNew(tmp.resolve(CELL_JSON), cellJson(run, result));
        }
        Durable.fsyncDir(tmp);
        Durable.moveDir(tmp, cellDir.resolve("r" + run.replicate()));
        Durable.fsyncDir(cellDir);
        Durable.fsyncDir(cellDir.getParent());
    }

    /** A capacity-search probe's cell id ({@code <cell>@<load>}): written in the compact layout. */
    public static boolean probe(String cell) {
        return cell.indexOf('@') >= 0;
    }

    /**
     * Drops a finished probe's {@code requests.csv.gz} (its histograms and summary stay): what {@code bundle.requests}
     * does to the probes it does not keep. True when there was one.
     */
    public static boolean dropRequests(Path bundle, String cell, int replicate) throws IOException {
        Path d = dir(bundle, cell, replicate);
        boolean had = Files.deleteIfExists(d.resolve(REQUESTS_CSV_GZ));
        if (had) Durable.fsyncDir(d);
        return had;
    }

    /** {@code {cell, replicate, seed, mode, factors, summary: CellResult.json(), extra_fields, describe, config}}. */
    static byte[] cellJson(CellRun run, CellResult result) throws IOException {
        return BundleJson.pretty(cellJsonNode(run, result, true));
    }

    /**
     * The comment line of a probe's {@code run.hlog} that carries what a fixed run's {@code cell.json} holds (compact JSON,
     * without {@code config}: the manifest has it): {@code #kvlab-cell {...}}. HdrHistogram's reader skips comments.
     */
    public static final String CELL_COMMENT = "kvlab-cell ";

    /**
     * A probe's intervals as it keeps them: per metric, every interval of the measured phase added into one (exact
     * totals and percentiles; the capacity search and the summary read no more). A probe the bundle keeps every
     * request of ({@code bundle.requests}) has the per-request times in {@code requests.csv.gz}.
     */
    static Map<Metric, List<IntervalHistogram>> whole(CellResult result) {
        // the run's own whole-phase histograms (what its summary's percentiles are read from), encoded once: adding up
        // the intervals would decode every one of them (a long probe has hundreds per metric)
        Map<Metric, List<IntervalHistogram>> out = new java.util.EnumMap<>(Metric.class);
        for (Metric m : Metric.values()) {
            List<IntervalHistogram> iv = result.intervals().getOrDefault(m, List.of());
            org.HdrHistogram.Histogram t = result.totals().get(m);
            long inIntervals = 0;
            for (IntervalHistogram ih : iv) inIntervals += ih.count();
            if (t == null || t.getTotalCount() != inIntervals) {
                // no total, or one that is not the intervals' sum: add the intervals up
                out.putAll(whole(java.util.Map.of(m, iv)));
                continue;
            }
            if (inIntervals == 0) continue;
            long start = Long.MAX_VALUE, end = Long.MIN_VALUE;
            for (IntervalHistogram ih : iv) {
                start = Math.min(start, ih.startNanos());
                end = Math.max(end, ih.endNanos());
            }
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(t.getNeededByteBufferCapacity());
            int n = t.encodeIntoByteBuffer(buf);
            out.put(
                    m,
                    List.of(new IntervalHistogram(
                            m,
                            start,
                            end,
                            inIntervals,
                            java.util.Arrays.copyOf(buf.array(), n),
                            t.getMaxValueAsDouble())));
        }
        return out;
    }

    static Map<Metric, List<IntervalHistogram>> whole(Map<Metric, List<IntervalHistogram>> intervals) {
        Map<Metric, List<IntervalHistogram>> out = new java.util.EnumMap<>(Metric.class);
        for (Metric m : Metric.values()) {
            List<IntervalHistogram> iv = intervals.getOrDefault(m, List.of());
            org.HdrHistogram.Histogram sum = null;
            long start = Long.MAX_VALUE, end = Long.MIN_VALUE, count = 0;
            double max = 0;
            for (IntervalHistogram ih : iv) {
                start = Math.min(start, ih.startNanos());
                end = Math.max(end, ih.endNanos());
                if (ih.count() == 0) continue;
                org.HdrHistogram.Histogram h = ih.histogram();
                if (sum == null)
                    sum = new org.HdrHistogram.Histogram(h.getNumberOfSignificantValueDigits()); // auto-resizing
                sum.add(h);
                count += ih.count();
                max = Math.max(max, ih.maxValue());
            }
            if (sum == null) continue;
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(sum.getNeededByteBufferCapacity());
            int n = sum.encodeIntoByteBuffer(buf);
            out.put(
                    m,
                    List.of(new IntervalHistogram(m, start, end, count, java.util.Arrays.copyOf(buf.array(), n), max)));
        }
        return out;
    }

    static ObjectNode cellJsonNode(CellRun run, CellResult result, boolean withConfig) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode o = f.objectNode();
        o.put("cell", run.cell());
        o.put("replicate", run.replicate());
        o.put("seed", run.seed());
        o.put("mode", run.mode().label());
        ObjectNode fac = o.putObject("factors");
        run.factors().forEach(fac::put);
        ObjectNode s = o.putObject("summary");
        result.json().forEach((k, v) -> s.set(k, Rows.toJson(v)));
        ArrayNode extra = o.putArray("extra_fields");
        result.extras().names().forEach(extra::add);
        ObjectNode d = o.putObject("describe");
        result.describe().forEach(d::put);
        if (withConfig) o.set("config", run.tree());
        return o;
    }
}
