package dev.kvlab.harness.core.internal.framework;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.twin.TwinCalibration;
import dev.kvlab.harness.core.RunValidator;
import dev.kvlab.harness.core.internal.cell.CellSteps;
import dev.kvlab.harness.core.internal.live.AuditedBackend;
import dev.kvlab.harness.core.internal.live.LiveLoop;
import dev.kvlab.harness.core.internal.live.LoopbackCalibration;
import dev.kvlab.harness.core.internal.live.UnpacedWarmup;
import dev.kvlab.harness.core.internal.sim.TwinRun;
import dev.kvlab.harness.spi.AuditedStore;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.LiveClock;
import dev.kvlab.harness.spi.StorePlan;
import dev.kvlab.harness.spi.TargetCell;
import dev.kvlab.harness.spi.TargetFramework;
import dev.kvlab.harness.spi.TwinPlan;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.transport.api.TransportProfile;
import dev.kvlab.workloads.api.ArrivalProcess;
import java.util.Map;
import java.util.function.Function;

/**
 * The core's {@link TargetFramework}: {@link RunValidator#spec}, {@link LiveLoop}, {@link AuditedBackend} and {@link CellSteps} behind the SPI;
 * the store and twin plans it gives out are {@link CorePlan}s.
 */
public final class CoreTargetFramework implements TargetFramework {

    @Override
    public CellSpec spec(
            RunConfig config, Function<String, String> origin, String modelId, String dtype, String layout) {
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
        return new CorePlan(RunValidator.plan(config, origin));
    }

    @Override
    public ArrivalProcess unpaced(ArrivalProcess whole, int inFlight, long limit) {
        return new UnpacedWarmup(whole, inFlight, limit);
    }

    @Override
    public TwinPlan twinPlan(RunConfig config, ModelSpec model, HardwareSpec hardware, Dtype kvDtype) {
        return new CorePlan(RunValidator.plan(config, k -> null, model, hardware, kvDtype));
    }

    @Override
    public CellResult twinRun(RunConfig config, TwinCalibration calibration) {
        return TwinRun.run(config, calibration);
    }

    @Override
    public TransportProfile loopbackProfile(RunConfig config, Map<String, String> machine) throws InterruptedException {
        var plan = RunValidator.plan(config, k -> null);
        return plan.transportName() == null ? null : LoopbackCalibration.measure(plan, machine);
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
