package dev.kvlab.harness.internal.framework;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.internal.cell.CellSteps;
import dev.kvlab.harness.internal.config.RunValidator;
import dev.kvlab.harness.internal.fault.LiveFaults;
import dev.kvlab.harness.internal.live.AuditedBackend;
import dev.kvlab.harness.internal.live.LiveCell;
import dev.kvlab.harness.internal.live.LiveLoop;
import dev.kvlab.harness.internal.live.LiveStore;
import dev.kvlab.harness.internal.live.UnpacedWarmup;
import dev.kvlab.harness.internal.plan.CellPlan;
import dev.kvlab.harness.internal.sim.SimTwin;
import dev.kvlab.harness.spi.AuditedStore;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.LinkProbe;
import dev.kvlab.harness.spi.LiveClock;
import dev.kvlab.harness.spi.StoreFaults;
import dev.kvlab.harness.spi.StorePlan;
import dev.kvlab.harness.spi.TargetCell;
import dev.kvlab.harness.spi.TargetFramework;
import dev.kvlab.harness.spi.TwinPlan;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.transport.api.TransportModel;
import dev.kvlab.workloads.api.ArrivalProcess;
import java.util.function.Function;

/** The core's {@link TargetFramework}: {@link RunValidator#spec}, {@link LiveLoop}, {@link AuditedBackend} and {@link CellSteps} behind the SPI. */
public final class CoreTargetFramework implements TargetFramework {

    @Override
    public CellSpec spec(RunConfig config, Function<String, String> origin, String modelId, String dtype, String layout) {
        return RunValidator.spec(config, origin, modelId, dtype, layout);
    }

    @Override
    public LiveClock liveClock(long minSpinNanos, long maxSpinNanos) {
        return LiveLoop.adaptive(minSpinNanos, maxSpinNanos);
    }

    @Override
    public LiveClock liveClock(long spinNanos) {
        return new LiveLoop(spinNanos);
    }

    @Override
    public AuditedStore audited(KvBackend inner) {
        return new AuditedBackend(inner);
    }

    @Override
    public StorePlan storePlan(RunConfig config, Function<String, String> origin) {
        return RunValidator.plan(config, origin);
    }

    /** {@code plan} is this framework's own ({@link #storePlan}): a {@link CellPlan}. */
    @Override
    public StoreFaults faults(StorePlan plan, long blockBytes) {
        return LiveFaults.of((CellPlan) plan, blockBytes);
    }

    @Override
    public ArrivalProcess unpaced(ArrivalProcess whole, int inFlight, long limit) {
        return new UnpacedWarmup(whole, inFlight, limit);
    }

    @Override
    public TwinPlan twinPlan(RunConfig config, ModelSpec model, HardwareSpec hardware, Dtype kvDtype) {
        return RunValidator.plan(config, k -> null, model, hardware, kvDtype);
    }

    /** {@code plan} is this framework's own ({@link #twinPlan}): a {@link CellPlan}. */
    @Override
    public LinkProbe probeLink(TwinPlan plan, LiveClock loop, AuditedStore store) throws InterruptedException {
        try (LiveStore s = new LiveStore((CellPlan) plan, loop, store)) {
            return s.probe(LiveCell.PROBE_ROUNDS);
        }
    }

    @Override
    public CellResult withTwin(CellResult live, TwinPlan plan, TransportModel link, long lookupNanos, Figures more) {
        return SimTwin.attach(live, SimTwin.run((CellPlan) plan, link, lookupNanos), link, more);
    }

    @Override
    public long requestCount(CellSpec spec) {
        return CellSteps.requestCount(spec);
    }

    @Override
    public CellResult run(CellSpec spec, TargetCell cell, CellObserver observer, long wallStartNanos) {
        return CellSteps.run(spec, cell, observer, wallStartNanos);
    }
}
