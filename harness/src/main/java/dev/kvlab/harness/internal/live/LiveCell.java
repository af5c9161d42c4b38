package dev.kvlab.harness.internal.live;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.internal.CellPlan;

/** One cell on the live clock (wall time, real store, real bytes). */
public final class LiveCell {

    private final CellPlan plan;

    public LiveCell(CellPlan plan) {
        this.plan = plan;
    }

    public CellResult run(long wallStartNanos) {
        throw new UnsupportedOperationException("live mode is not implemented yet (" + plan.model().id() + ")");
    }
}
