package dev.kvlab.harness.api;

import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.internal.CellPlan;
import dev.kvlab.harness.internal.SimTwin;
import dev.kvlab.harness.internal.config.RunValidator;
import dev.kvlab.harness.internal.live.LiveCell;
import dev.kvlab.harness.internal.sim.SimCell;

/**
 * Runs one cell: a resolved {@link RunConfig} (seed and mode included) in, a {@link CellResult} out. The config
 * is validated again first ({@link BadInputException} before anything runs). Sim cells are single-threaded and
 * deterministic; live cells start an embedded store (or connect to {@code kvlab://}) and stop it before
 * returning, then run their sim twin ({@link SimTwin}: the same cell on the sim clock on the link the live cell
 * measured) whose figures join the live cell's. A runner holds no state between cells; cells may run one after another on one runner.
 */
public final class CellRunner {

    /** Runs {@code config}; wall time counts from now. */
    public CellResult run(RunConfig config) {
        return run(config, System.nanoTime());
    }

    /** Runs {@code config}; {@code wallStartNanos} ({@link System#nanoTime()}) is when the caller started loading it. */
    public CellResult run(RunConfig config, long wallStartNanos) {
        return run(config, wallStartNanos, CellObserver.NONE);
    }

    /**
     * Runs {@code config} with {@code observer} watching its measured phase at every interval end (see
     * {@link CellObserver}); the result is the same as without it.
     */
    public CellResult run(RunConfig config, long wallStartNanos, CellObserver observer) {
        CellPlan plan = RunValidator.plan(config, k -> null);
        if (config.mode() == Mode.SIM) return new SimCell(plan, null, observer).run(wallStartNanos);
        LiveCell live = new LiveCell(plan).observedBy(observer);
        CellResult r = live.run(wallStartNanos);
        // the twin runs on the link this cell measured at its start and its end (what its fetches met lies between),
        // even where auto decided on a transport_profile
        var p = live.twinProbe();
        var link = p.model(plan.transportName());
        return SimTwin.attach(r, SimTwin.run(plan, link, p.lookupNanos()), link, live.twinLinkExtras());
    }
}
