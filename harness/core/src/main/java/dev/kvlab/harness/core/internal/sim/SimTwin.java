package dev.kvlab.harness.core.internal.sim;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.transport.api.TransportModel;

/**
 * The sim twin of a live cell: the same plan (seed, workload, model, store settings, fault) on the sim clock, its
 * data path costed by the link the live cell measured on this machine at its start, its metadata round trip the
 * one the live cell measured. What the sim predicts for the live cell, next to what the
 * live cell measured: the {@code twin_*} figures of its summary row ({@link Columns#TWIN_TTFT_P50}, ...).
 */
public final class SimTwin {

    private SimTwin() {}

    /** Runs the twin of {@code live} on {@code link}, with {@code lookupNanos} per metadata round trip. */
    public static CellResult run(CellPlan live, TransportModel link, long lookupNanos) {
        return run(live, link, null, lookupNanos);
    }

    /** The twin run with a disaggregated prompt's handover on the legs {@code handoff} (null or empty: on {@code link}). */
    public static CellResult run(
            CellPlan live, TransportModel link, java.util.List<TransportModel> handoff, long lookupNanos) {
        return new SimCell(live.withTransportModel(link, lookupNanos).withHandoffPath(handoff), null)
                .run(System.nanoTime());
    }

    /** {@code live} with the twin's figures added to its extras. */
    public static CellResult attach(CellResult live, CellResult twin, TransportModel link, Figures more) {
        CellSummary t = twin.summary();
        Figures extras = Figures.of(live.extras()).putAll(more);
        Columns.TWIN_TTFT_P50.put(extras, t.p50Ms(Metric.TTFT));
        Columns.TWIN_TTFT_P99.put(extras, t.p99Ms(Metric.TTFT));
        Columns.TWIN_ITL_P50.put(extras, t.p50Ms(Metric.ITL));
        Columns.TWIN_ITL_P99.put(extras, t.p99Ms(Metric.ITL));
        Columns.TWIN_FETCH_P50.put(extras, t.p50Ms(Metric.FETCH));
        Columns.TWIN_GOODPUT_RPS.put(extras, t.get(Columns.GOODPUT_RPS));
        Columns.TWIN_LOCAL_HIT_RATIO.put(extras, t.get(Columns.LOCAL_HIT_RATIO));
        Columns.TWIN_REMOTE_HIT_RATIO.put(extras, t.get(Columns.REMOTE_HIT_RATIO));
        Columns.TWIN_TRANSPORT_MODEL.put(extras, link.name());
        // where the twin's p50 falls in the live distribution: 0.5 is a perfect match; near it but off in value means
        // the p50 sits on the edge between two modes (hits and misses) of the TTFT distribution
        double p50 = t.p50Ms(Metric.TTFT);
        long n = 0, below = 0;
        for (var r : live.requests()) {
            if (!Double.isFinite(r.ttftMs())) continue;
            n++;
            if (r.ttftMs() <= p50) below++;
        }
        Columns.TWIN_TTFT_P50_LIVE_SHARE.put(extras, n == 0 || !Double.isFinite(p50) ? Double.NaN : (double) below / n);
        return new CellResult(
                live.config(),
                live.summary(),
                live.totals(),
                live.intervals(),
                live.requestLog(),
                extras,
                live.describe(),
                live.handovers());
    }
}
