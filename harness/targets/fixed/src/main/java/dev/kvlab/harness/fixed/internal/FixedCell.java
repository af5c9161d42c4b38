package dev.kvlab.harness.fixed.internal;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.EventLoop;
import dev.kvlab.harness.spi.LiveClock;
import dev.kvlab.harness.spi.MeasurementView;
import dev.kvlab.harness.spi.PhaseDriver;
import dev.kvlab.harness.spi.Server;
import dev.kvlab.harness.spi.TargetCell;
import dev.kvlab.harness.spi.TargetFramework;
import java.util.Locale;
import java.util.Map;

/**
 * One cell of the fixed target: the framework's live clock, the {@link FixedServer} on it; the framework runs the
 * cell's steps, measures and builds the row. The target adds the summary columns only it knows (no tiers, no store,
 * one stand-in instance) and its words.
 */
final class FixedCell implements TargetCell {

    /** Bounds of the spun tail of each wait: as long as this machine's park overshoots, within these. */
    private static final long MIN_SPIN_NANOS = 50_000, MAX_SPIN_NANOS = 2_000_000;

    private final CellSpec spec;
    private final FixedTargetConfig.Resolved target;
    private LiveClock loop;
    private FixedServer server;

    FixedCell(CellSpec spec, FixedTargetConfig.Resolved target) {
        this.spec = spec;
        this.target = target;
    }

    CellResult run(long wallStartNanos, CellObserver observer) {
        loop = TargetFramework.get().liveClock(MIN_SPIN_NANOS, MAX_SPIN_NANOS);
        server = new FixedServer(loop, target.delayNanos(), target.tokens());
        return TargetFramework.get().run(spec, this, observer, wallStartNanos);
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public Server server() {
        return server;
    }

    /** A moment to spare, so that the first request is not late by construction. */
    @Override
    public long phaseOrigin(boolean warmup) {
        return loop.now() + 5_000_000L;
    }

    @Override
    public void runPhase(PhaseDriver d) {
        loop.run(() -> (d.done() || d.error() != null) && server.inFlight() == 0);
    }

    /** The live clock's figures start over: its lag is the measured phase's own. */
    @Override
    public void measuredPhaseStarts() {
        loop.resetFigures();
    }

    /**
     * The target's kind, and how late the live clock ran its events over the measured phase (a request's TTFT is the delay
     * plus how late its arrival and its answer ran).
     */
    @Override
    public void extras(MeasurementView m, Figures x) {
        Columns.TARGET_KIND.put(x, FixedTarget.KIND);
        Columns.EVENT_LAG_P50_US.put(x, (double) loop.lag().getValueAtPercentile(50));
        Columns.EVENT_LAG_P99_US.put(x, (double) loop.lag().getValueAtPercentile(99));
        Columns.EVENT_LAG_MAX_US.put(x, (double) loop.lag().getMaxValue());
    }

    @Override
    public String describe() {
        return "live (wall clock): the fixed stand-in; waits park, then spin a tail as long as this machine's park overshoots ("
                + MIN_SPIN_NANOS / 1000 + "-" + MAX_SPIN_NANOS / 1000 + " us"
                + (loop == null ? "" : ", ended at " + loop.spinNanos() / 1000 + " us") + ")";
    }

    /**
     * No tiers, store or engine: nothing served from a cache (hit ratios 0); the store's figures do not apply (empty, as
     * for any target without kvlab's store path: a wrong-hit count of 0 would claim an audit that never ran); one
     * stand-in instance, nothing prefilled on a GPU (NaN).
     */
    @Override
    public void summary(CellSummary.Builder row, Figures extras) {
        row.put(Columns.TIERS, "-")
                .put(Columns.POLICY, "-")
                .put(Columns.TRANSPORT, "-")
                .put(Columns.PD, "-")
                .put(Columns.LOCAL_HIT_RATIO, 0.0)
                .put(Columns.REMOTE_HIT_RATIO, 0.0)
                .put(Columns.REMOTE_AVAILABLE_RATIO, 0.0)
                .put(Columns.FETCHED_BYTES, null)
                .put(Columns.FALLBACKS, null)
                .put(Columns.WRONG_HITS_USED, null)
                .put(Columns.WRITTEN_BACK_BYTES, null)
                .put(Columns.REJECTED_BLOCKS, null)
                .put(Columns.MODEL, "-")
                .put(Columns.HARDWARE, "-")
                .put(Columns.INSTANCES, 1L)
                .put(Columns.TP, null)
                .put(
                        Columns.EMULATED_PARTS,
                        "everything: a stand-in answering after " + ms() + " with " + target.tokens() + " tokens")
                .put(Columns.PREFILL_GPU_MS_MEAN, Double.NaN);
    }

    @Override
    public void finish(Figures extras, Map<String, String> describe) {
        describe.put(
                "target",
                "fixed: every request answered " + ms() + " after it arrived, with " + target.tokens() + " tokens");
    }

    private String ms() {
        return String.format(Locale.ROOT, "%.3f ms", target.delayNanos() / 1e6);
    }
}
