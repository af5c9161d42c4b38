package dev.kvlab.harness.core.internal.live;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.internal.sim.SimCell;

/**
 * Warms the JIT up before a live cell runs: the cell's own workload through the serving model on the sim clock
 * (the same model, workload, measurement and request log code; no store, no bytes; results discarded), pass after
 * pass for up to {@link #BUDGET_NANOS}. A live cell runs its per-request code once per request: in a cell of a
 * hundred requests that code would run interpreted or in the JIT's profiling tier throughout, and the harness would
 * measure the JVM's warm-up (several times its steady cost per request, and later events) instead of the system.
 */
final class JitWarmup {

    /** Wall time the warm-up may take (at least one pass runs). */
    static final long BUDGET_NANOS = 300_000_000L;

    private JitWarmup() {}

    /** Runs the passes; returns how many. */
    static int run(CellPlan plan) {
        long t0 = System.nanoTime();
        int passes = 0;
        do {
            CellResult r = new SimCell(plan, null).run(System.nanoTime());
            r.requestLog().file().toFile().delete();
            passes++;
        } while (System.nanoTime() - t0 < BUDGET_NANOS);
        return passes;
    }
}
