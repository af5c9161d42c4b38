package dev.kvlab.harness.core.internal.sim;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.internal.cell.CellAssembly;
import dev.kvlab.harness.core.internal.cell.ServingCell;
import dev.kvlab.harness.spi.EventLoop;
import dev.kvlab.harness.spi.MeasurementView;
import dev.kvlab.harness.spi.PhaseDriver;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.harness.spi.TargetCell;
import dev.kvlab.harness.spi.TargetFramework;
import dev.kvlab.store.api.MasterStats;
import dev.kvlab.transport.api.TransportModel;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * One cell on the sim clock: the serving model on a {@link SimLoop}, the store's master under the virtual clock,
 * transfers costed by a transport model. Single-threaded and deterministic: the same plan (seed included) gives
 * the same result, wall time aside. The emulated target's cell on the sim clock: a {@link TargetCell} run through
 * {@link TargetFramework#run} as every target's is, adding the serving model's own figures ({@link CellAssembly}).
 */
public final class SimCell extends ServingCell {

    private final SimStore.FaultHook faults;
    private final CellObserver observer;
    private SimLoop loop;
    private SimFaults injected;
    private SimStore store;

    public SimCell(CellPlan plan, SimStore.FaultHook faults) {
        this(plan, faults, CellObserver.NONE);
    }

    /** A cell whose measured phase {@code observer} watches at every interval end (on this cell's thread). */
    public SimCell(CellPlan plan, SimStore.FaultHook faults, CellObserver observer) {
        super(plan);
        this.faults = faults;
        this.observer = observer == null ? CellObserver.NONE : observer;
    }

    public CellResult run(long wallStartNanos) {
        loop = new SimLoop();
        injected = SimFaults.of(plan, loop); // the config's fault, modelled (null: none)
        store = new SimStore(plan, loop, loop.clock(), plan.transportModel(), injected != null ? injected : faults);
        if (injected != null) injected.attach(store);
        return TargetFramework.get().run(plan.spec(), this, observer, wallStartNanos);
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    protected SimStore remote() {
        return store;
    }

    @Override
    public long phaseOrigin(boolean warmup) {
        return loop.now();
    }

    @Override
    public void runPhase(PhaseDriver driver) {
        loop.run();
    }

    @Override
    public ServingListener faultWrapped(ServingListener m, long origin, LongSupplier measuredRequests) {
        return injected == null ? m : injected.measured(m, origin, measuredRequests.getAsLong());
    }

    @Override
    public MasterStats masterStats() {
        return store.master().stats();
    }

    @Override
    public Map<String, Long> masterCalls() {
        return store.masterCalls();
    }

    @Override
    public void extras(MeasurementView m, Figures extras) {
        servingExtras(m, extras);
        Columns.SIM_EVENTS.put(extras, loop.events());
        if (injected != null) injected.extras(extras);
    }

    @Override
    public String emulated() {
        TransportModel tm = plan.transportModel();
        return "gpu time (roofline on " + plan.hardware().id() + "); data movement (transport model " + tm.name()
                + (tm.emulated() ? ", emulated" : ", calibrated") + ")";
    }

    @Override
    public String describe() {
        return "sim (discrete-event, virtual time)";
    }
}
