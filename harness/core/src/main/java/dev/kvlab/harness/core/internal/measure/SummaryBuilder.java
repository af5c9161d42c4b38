package dev.kvlab.harness.core.internal.measure;

import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.config.RunConfig;
import java.util.EnumMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Turns a finished {@link Measurement} into the cell's {@link CellSummary}. */
public final class SummaryBuilder {

    private SummaryBuilder() {}

    /** p50, p99 and mean (ms) of every metric's whole-run histogram; NaN for a metric without values. */
    public static Map<Metric, double[]> percentilesMs(Measurement m) {
        Map<Metric, double[]> pct = new EnumMap<>(Metric.class);
        for (Metric metric : Metric.values()) {
            Histogram h = m.total(metric);
            pct.put(
                    metric,
                    h.getTotalCount() == 0
                            ? new double[] {Double.NaN, Double.NaN, Double.NaN}
                            : new double[] {
                                h.getValueAtPercentile(50.0) / 1000.0,
                                h.getValueAtPercentile(99.0) / 1000.0,
                                h.getMean() / 1000.0
                            });
        }
        return pct;
    }

    /**
     * The columns every target computes the same way from its measurement: the latencies, the request counts, goodput,
     * SLO attainment, the measured span, the wall time, throughput and output tokens per second; the seed and the mode.
     */
    public static CellSummary.Builder measured(RunConfig c, Measurement m, double wallSeconds) {
        double span = m.spanNanos() / 1e9;
        return CellSummary.builder(percentilesMs(m))
                .put(Columns.SEED, c.seed())
                .put(Columns.MODE, c.mode().label())
                .put(Columns.CACHE_STATE, c.cacheState().label())
                .put(Columns.REQUESTS, m.requests())
                .put(Columns.COMPLETED, m.completed())
                .put(Columns.FAILED, m.failed())
                .put(Columns.GOODPUT_RPS, span > 0 ? m.good() / span : Double.NaN)
                .put(Columns.SLO_ATTAINMENT, m.requests() == 0 ? Double.NaN : (double) m.good() / m.requests())
                .put(Columns.SIMULATED_SECONDS, span)
                .put(Columns.WALL_SECONDS, wallSeconds)
                .put(Columns.THROUGHPUT_RPS, span > 0 ? m.completed() / span : Double.NaN)
                .put(Columns.OUTPUT_TOKENS_PER_S, span > 0 ? m.outputTokens() / span : Double.NaN);
    }

    /** The hit ratios of kvlab's own tiers: local, remote (fetched) and remote-available, each over the prompt tokens. */
    public static CellSummary.Builder tierHits(CellSummary.Builder b, Measurement m) {
        double in = m.inputTokens();
        return b.put(Columns.LOCAL_HIT_RATIO, in == 0 ? 0 : m.localHitTokens() / in)
                .put(Columns.REMOTE_HIT_RATIO, in == 0 ? 0 : m.remoteHitTokens() / in)
                .put(Columns.REMOTE_AVAILABLE_RATIO, in == 0 ? 0 : m.remoteAvailableTokens() / in)
                .put(Columns.FETCHED_BYTES, m.fetchedBytes())
                .put(Columns.FALLBACKS, m.fallbackBlocks());
    }
}
