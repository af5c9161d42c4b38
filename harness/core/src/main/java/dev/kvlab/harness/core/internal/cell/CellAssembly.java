package dev.kvlab.harness.core.internal.cell;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.config.CacheState;
import dev.kvlab.harness.api.config.Pd;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.internal.engine.Instance;
import dev.kvlab.harness.core.internal.engine.RemoteTier;
import dev.kvlab.harness.core.internal.engine.ServingModel;
import dev.kvlab.harness.core.internal.measure.Measurement;
import dev.kvlab.harness.core.internal.measure.SummaryBuilder;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.MeasurementView;
import dev.kvlab.harness.spi.TargetCell;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Builds a cell's {@link CellResult} from its finished run, the same way for every target: the measured columns
 * ({@link SummaryBuilder#measured}) and, where the target's fetches go through kvlab's store, its tiers'
 * ({@link SummaryBuilder#tierHits}), then the target's own ({@link TargetCell#summary}); the warm-up count, the steps'
 * and the target's extras; the clock and the workload, then the target's words ({@link TargetCell#finish}). The
 * emulated serving model's own figures (its sim and live cells') are {@link #servingExtras} and {@link #servingSummary}.
 */
public final class CellAssembly {

    private CellAssembly() {}

    /** The row of {@code cell}'s finished run. */
    public static CellResult assemble(
            CellSpec spec,
            TargetCell cell,
            Measurement m,
            long warmupRequests,
            double wallSeconds,
            Figures extras,
            Map<String, String> describe) {
        CellSummary.Builder row = SummaryBuilder.measured(spec.config(), m, wallSeconds);
        if (cell.storePath()) SummaryBuilder.tierHits(row, m);
        cell.summary(row, extras);
        CellSummary s = row.build();
        Map<Metric, Histogram> totals = new EnumMap<>(Metric.class);
        for (Metric metric : Metric.values()) totals.put(metric, m.total(metric));
        Figures x = new Figures();
        Columns.WARMUP_REQUESTS.put(x, warmupRequests);
        x.putAll(extras);
        Map<String, String> d = new LinkedHashMap<>(describe);
        d.put("workload", spec.workload().describe());
        cell.finish(x, d);
        m.records().close();
        return new CellResult(spec.config(), s, totals, m.intervals(), m.records(), x, d, m.handoverRecords());
    }

    /**
     * The serving model's own extras over the finished measured phase {@code m} (first among its cell's extras): the remote
     * tier's write-back and verification counts, iterations, HBM blocks and evictions, GPU utilisation.
     */
    public static void servingExtras(
            CellPlan plan, MeasurementView m, ServingModel model, RemoteTier remote, Figures extras) {
        var rs = remote.stats();
        Columns.VERIFIED_BLOCKS.put(extras, rs.verifiedBlocks());
        Columns.WRITTEN_BACK_BLOCKS.put(extras, rs.writtenBlocks());
        Columns.WRITE_BACK_SKIPPED.put(extras, rs.writeSkipped());
        Columns.WRITE_BACK_NO_SPACE.put(extras, rs.writeNoSpace());
        Columns.WRITE_BACK_FAILED.put(extras, rs.writeFailed());
        Columns.WRITE_BACK_DROPPED.put(extras, rs.writeDropped());
        Columns.HANDOFF_BYTES.put(extras, rs.handoffBytes());
        long iterations = 0, evictions = 0;
        double busy = 0;
        for (Instance in : model.instances()) {
            iterations += in.iterations();
            evictions += in.cache.evictions();
            busy += in.busySeconds();
        }
        Columns.ITERATIONS.put(extras, iterations);
        Columns.HBM_BLOCKS_PER_INSTANCE.put(extras, plan.hbmKvBlocks());
        Columns.HBM_EVICTIONS.put(extras, evictions);
        double span = m.spanNanos() / 1e9; // the row's simulated_seconds
        Columns.GPU_UTILIZATION.put(extras, span > 0 ? busy / (model.instances().size() * span) : Double.NaN);
    }

    /**
     * The serving model's own summary columns, after the measured and tier columns: the config's tiers, policy, transport
     * and PD, the remote tier's wrong hits, write-backs and rejections, model, hardware, instances, TP, what is emulated
     * and the prefill instances' GPU time per request (PD cold cells only: otherwise not separable, NaN).
     */
    public static void servingSummary(
            CellSummary.Builder row,
            CellPlan plan,
            MeasurementView m,
            ServingModel model,
            RemoteTier remote,
            String emulated) {
        RunConfig c = plan.config();
        double prefillBusy = 0;
        for (Instance in : model.instances()) if (in.role == Instance.Role.PREFILL) prefillBusy += in.busySeconds();
        // only prefill instances (PD) do prefill alone, and a hot cell's warm-up iterations are not the measured
        // requests'
        boolean separable = c.pd() == Pd.DISAGGREGATED && c.cacheState() == CacheState.COLD;
        double prefillGpuSeconds = separable ? prefillBusy : Double.NaN;
        var rs = remote.stats();
        row.put(Columns.TIERS, c.tiers().label())
                .put(Columns.POLICY, c.policy().label())
                .put(Columns.TRANSPORT, c.transport())
                .put(Columns.PD, c.pd().label())
                .put(Columns.WRONG_HITS_USED, rs.wrongHitsUsed())
                .put(Columns.WRITTEN_BACK_BYTES, rs.writtenBytes())
                .put(Columns.REJECTED_BLOCKS, rs.rejectedBlocks())
                .put(Columns.MODEL, plan.model().id())
                .put(Columns.HARDWARE, plan.hardware().id())
                .put(Columns.INSTANCES, (long) c.cluster().instances())
                .put(Columns.TP, (long) c.cluster().tp())
                .put(Columns.EMULATED_PARTS, emulated)
                .put(
                        Columns.PREFILL_GPU_MS_MEAN,
                        m.requests() == 0 ? Double.NaN : 1000.0 * prefillGpuSeconds / m.requests());
    }

    /** The serving model's words on the row, after the clock and the workload: its store and its GPU time model. */
    public static void servingDescribe(CellPlan plan, RemoteTier remote, Map<String, String> describe) {
        describe.put("store", remote.describe());
        describe.put(
                "gpu",
                "roofline (emulated): " + plan.model().id() + " on " + plan.kv().tp() + "x "
                        + plan.hardware().id() + " (prefill MFU "
                        + plan.hardware().prefillMfu() + ", decode bandwidth utilisation "
                        + plan.hardware().decodeBandwidthUtilization() + ")");
    }
}
