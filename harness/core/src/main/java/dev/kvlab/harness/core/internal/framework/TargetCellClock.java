package dev.kvlab.harness.core.internal.framework;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.core.internal.cell.CellClock;
import dev.kvlab.harness.core.internal.cell.CellSteps;
import dev.kvlab.harness.core.internal.engine.WorkloadDriver;
import dev.kvlab.harness.core.internal.measure.Measurement;
import dev.kvlab.harness.core.internal.measure.SummaryBuilder;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.EventLoop;
import dev.kvlab.harness.spi.Server;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.harness.spi.TargetCell;
import dev.kvlab.store.api.MasterStats;
import dev.kvlab.workloads.api.ArrivalProcess;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * A target's {@link TargetCell} run as a {@link CellClock}: the cell's steps are {@link CellSteps}', and its row is
 * built here, the same way for every target on the SPI — the measured columns ({@link SummaryBuilder#measured}) and,
 * where the target's fetches go through kvlab's store, its tiers' ({@link SummaryBuilder#tierHits}), then the target's
 * own; the warm-up count, the steps' and the target's extras; the clock and the workload, then the target's words.
 */
final class TargetCellClock implements CellClock {

    private final CellSpec spec;
    private final TargetCell cell;

    TargetCellClock(CellSpec spec, TargetCell cell) {
        this.spec = spec;
        this.cell = cell;
    }

    @Override public EventLoop loop() { return cell.loop(); }
    @Override public Server server() { return cell.server(); }
    @Override public long wrongHitsUsed() { return cell.wrongHitsUsed(); }
    @Override public boolean storePath() { return cell.storePath(); }
    @Override public long phaseOrigin(boolean warmup) { return cell.phaseOrigin(warmup); }
    @Override public void runPhase(WorkloadDriver driver) { cell.runPhase(driver); }
    @Override public MasterStats masterStats() { return cell.masterStats(); }
    @Override public Map<String, Long> masterCalls() { return cell.masterCalls(); }

    @Override
    public ServingListener faultWrapped(Measurement m, long origin, LongSupplier measuredRequests) {
        return cell.faultWrapped(m, origin, measuredRequests);
    }
    @Override public boolean serverGone() { return cell.serverGone(); }
    @Override public ArrivalProcess arrivals(ArrivalProcess whole) { return cell.arrivals(whole); }
    @Override public ArrivalProcess warmupArrivals(ArrivalProcess whole) { return cell.warmupArrivals(whole); }
    @Override public long primedBy() { return cell.primedBy(); }
    @Override public void measuredPhaseStarts() { cell.measuredPhaseStarts(); }
    @Override public Map<String, Double> engineCounters() { return cell.engineCounters(); }
    @Override public void extras(Measurement m, Figures extras) { cell.extras(m, extras); }
    @Override public String describe() { return cell.describe(); }

    @Override
    public CellResult assemble(Measurement m, long warmupRequests, double wallSeconds, Figures extras, Map<String, String> describe) {
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
        return new CellResult(spec.config(), s, totals, m.intervals(), m.records(), x, d);
    }
}
