package dev.kvlab.harness.core.internal.framework;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.internal.fault.LiveFaults;
import dev.kvlab.harness.core.internal.live.LiveCell;
import dev.kvlab.harness.core.internal.live.LiveStore;
import dev.kvlab.harness.core.internal.sim.SimTwin;
import dev.kvlab.harness.spi.AuditedStore;
import dev.kvlab.harness.spi.LinkProbe;
import dev.kvlab.harness.spi.LiveClock;
import dev.kvlab.harness.spi.StoreFaults;
import dev.kvlab.harness.spi.StorePlan;
import dev.kvlab.harness.spi.TwinPlan;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportModel;

/**
 * The SPI's view of a core {@link CellPlan}: a run's store ({@link StorePlan}) or a real engine's sim twin ({@link TwinPlan})
 * as a target sees it. It holds the plan it was made from, so what the framework does with it (the store's fault, the
 * twin's link probe and run) needs no cast back.
 *
 * @param plan the planned cell
 */
record CorePlan(CellPlan plan) implements TwinPlan {

    @Override
    public String transportName() {
        return plan.transportName();
    }

    @Override
    public LinkSpec link() {
        return plan.link();
    }

    @Override
    public long storeCapacity() {
        return plan.storeCapacity();
    }

    @Override
    public MasterConfig masterConfig() {
        return plan.masterConfig();
    }

    @Override
    public ModelSpec model() {
        return plan.model();
    }

    @Override
    public HardwareSpec hardware() {
        return plan.hardware();
    }

    @Override
    public Roofline roofline() {
        return plan.roofline();
    }

    @Override
    public StoreFaults faults(long blockBytes) {
        return LiveFaults.of(plan, blockBytes);
    }

    @Override
    public LinkProbe probeLink(LiveClock loop, AuditedStore store) throws InterruptedException {
        try (LiveStore s = new LiveStore(plan, loop, store)) {
            return s.probe(LiveCell.PROBE_ROUNDS, false); // a target's twin (llama.cpp) does not charge the wake
        }
    }

    @Override
    public CellResult withTwin(
            CellResult live,
            TransportModel link,
            java.util.List<TransportModel> handoff,
            long lookupNanos,
            Figures more) {
        return SimTwin.attach(live, SimTwin.run(plan, link, handoff, lookupNanos), link, more);
    }
}
