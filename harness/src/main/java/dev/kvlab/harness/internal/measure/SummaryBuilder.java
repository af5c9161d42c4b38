package dev.kvlab.harness.internal.measure;

import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.internal.CellPlan;
import dev.kvlab.harness.internal.engine.RemoteTier;
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
            pct.put(metric, h.getTotalCount() == 0 ? new double[] {Double.NaN, Double.NaN, Double.NaN}
                    : new double[] {h.getValueAtPercentile(50.0) / 1000.0, h.getValueAtPercentile(99.0) / 1000.0, h.getMean() / 1000.0});
        }
        return pct;
    }

    /** {@code prefillGpuSeconds}: GPU-busy seconds of the prefill instances (PD), NaN when not separable. */
    public static CellSummary build(CellPlan plan, Measurement m, RemoteTier.RemoteStats remote, double wallSeconds, String emulated,
                                    double prefillGpuSeconds) {
        RunConfig c = plan.config();
        Map<Metric, double[]> pct = percentilesMs(m);
        double span = m.spanNanos() / 1e9;
        double in = m.inputTokens();
        return new CellSummary(c.seed(), c.mode().label(), c.cacheState().label(), c.tiers().label(), c.policy().label(),
                c.transport(), c.pd().label(), m.requests(), m.completed(), m.failed(), pct,
                span > 0 ? m.good() / span : Double.NaN,
                m.requests() == 0 ? Double.NaN : (double) m.good() / m.requests(),
                in == 0 ? 0 : m.localHitTokens() / in,
                in == 0 ? 0 : m.remoteHitTokens() / in,
                m.fetchedBytes(), m.fallbackBlocks(), remote.wrongHitsUsed(), span, wallSeconds,
                span > 0 ? m.completed() / span : Double.NaN,
                span > 0 ? m.outputTokens() / span : Double.NaN,
                in == 0 ? 0 : m.remoteAvailableTokens() / in,
                remote.writtenBytes(), remote.rejectedBlocks(), plan.model().id(), plan.hardware().id(),
                c.cluster().instances(), c.cluster().tp(), emulated,
                m.requests() == 0 ? Double.NaN : 1000.0 * prefillGpuSeconds / m.requests());
    }
}
