package dev.kvlab.harness.core.internal.cell;

import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.internal.engine.RemoteTier;
import dev.kvlab.harness.core.internal.engine.ServingModel;
import dev.kvlab.harness.spi.MeasurementView;
import dev.kvlab.harness.spi.Server;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.harness.spi.TargetCell;
import java.util.Map;

/**
 * The emulated target's cell on either clock: the serving model on the clock's loop over the cell's remote tier, and
 * what both clocks add to the row alike (the serving model's summary columns, extras and words, the tier's wrong hits).
 * The sim and live cells say what differs: the loop, the tier, what is emulated, their own figures.
 */
public abstract class ServingCell implements TargetCell {

    protected final CellPlan plan;
    private ServingModel model;
    private MeasurementView measured;

    protected ServingCell(CellPlan plan) {
        this.plan = plan;
    }

    /** The cell's remote tier (its store), once the cell runs. */
    protected abstract RemoteTier remote();

    /** What this clock emulates (the summary's {@code emulated}). */
    public abstract String emulated();

    @Override
    public boolean storePath() {
        return true;
    }

    @Override
    public long wrongHitsUsed() {
        return remote().stats().wrongHitsUsed();
    }

    @Override
    public Server server() {
        if (model == null) model = new ServingModel(plan, loop(), remote(), ServingListener.NONE);
        return model;
    }

    /** The serving model's extras over the finished measured phase {@code m}, first among the cell's. */
    protected void servingExtras(MeasurementView m, Figures extras) {
        measured = m;
        CellAssembly.servingExtras(plan, m, model, remote(), extras);
    }

    @Override
    public void summary(CellSummary.Builder row, Figures extras) {
        CellAssembly.servingSummary(row, plan, measured, model, remote(), emulated());
    }

    @Override
    public void finish(Figures extras, Map<String, String> describe) {
        CellAssembly.servingDescribe(plan, remote(), describe);
    }
}
