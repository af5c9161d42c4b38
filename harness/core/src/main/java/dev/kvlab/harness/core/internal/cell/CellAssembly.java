package dev.kvlab.harness.core.internal.cell;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.config.CacheState;
import dev.kvlab.harness.api.config.Pd;
import dev.kvlab.harness.core.internal.engine.Instance;
import dev.kvlab.harness.core.internal.engine.RemoteTier;
import dev.kvlab.harness.core.internal.engine.ServingModel;
import dev.kvlab.harness.core.internal.measure.Measurement;
import dev.kvlab.harness.core.internal.measure.SummaryBuilder;
import dev.kvlab.harness.core.CellPlan;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Builds a {@link CellResult} from a finished run; the parts both clocks share. */
public final class CellAssembly {

    private CellAssembly() {}

    public static CellResult assemble(CellPlan plan, Measurement m, ServingModel model, RemoteTier remote, long warmupRequests,
                                      double wallSeconds, String emulated, Figures clockExtras, Map<String, String> describe) {
        double prefillBusy = 0;
        for (Instance in : model.instances()) if (in.role == Instance.Role.PREFILL) prefillBusy += in.busySeconds();
        // only prefill instances (PD) do prefill alone, and a hot cell's warm-up iterations are not the measured requests'
        boolean separable = plan.config().pd() == Pd.DISAGGREGATED && plan.config().cacheState() == CacheState.COLD;
        CellSummary summary = SummaryBuilder.build(plan, m, remote.stats(), wallSeconds, emulated, separable ? prefillBusy : Double.NaN);
        Map<Metric, Histogram> totals = new EnumMap<>(Metric.class);
        for (Metric metric : Metric.values()) totals.put(metric, m.total(metric));
        Figures extras = new Figures();
        var rs = remote.stats();
        Columns.WARMUP_REQUESTS.put(extras, warmupRequests);
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
        Columns.GPU_UTILIZATION.put(extras,
                summary.get(Columns.SIMULATED_SECONDS) > 0 ? busy / (model.instances().size() * summary.get(Columns.SIMULATED_SECONDS)) : Double.NaN);
        extras.putAll(clockExtras);
        Map<String, String> d = new LinkedHashMap<>(describe);
        d.put("workload", plan.workload().describe());
        d.put("store", remote.describe());
        d.put("gpu", "roofline (emulated): " + plan.model().id() + " on " + plan.kv().tp() + "x " + plan.hardware().id() + " (prefill MFU "
                + plan.hardware().prefillMfu() + ", decode bandwidth utilisation " + plan.hardware().decodeBandwidthUtilization() + ")");
        m.records().close();
        return new CellResult(plan.config(), summary, totals, m.intervals(), m.records(), extras, d);
    }
}
