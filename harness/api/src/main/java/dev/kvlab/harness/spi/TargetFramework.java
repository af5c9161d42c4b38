package dev.kvlab.harness.spi;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.twin.TwinCalibration;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.transport.api.TransportProfile;
import dev.kvlab.workloads.api.ArrivalProcess;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * What the framework gives a target ({@link TargetProvider}): the checked cell spec, the live clock, the audited store tier, the steps of a
 * measured cell with its one measurement, and the assembly of its row. Implemented by the harness's core and found by
 * {@link ServiceLoader}, so that a target depends on {@code api} (this package) alone.
 */
public interface TargetFramework {

    /** The framework: the one implementation on the class path. */
    static TargetFramework get() {
        return Found.FRAMEWORK;
    }

    /**
     * Checks what every cell reads whatever its target (mode, cache state, workload, warm-up, SLOs, measurement) and plans
     * it, its KV-block keys in the namespace of {@code modelId}, {@code dtype} and {@code layout}; errors name
     * {@code origin.apply(key)}.
     */
    CellSpec spec(RunConfig config, Function<String, String> origin, String modelId, String dtype, String layout);

    /** A wall clock whose spun tail adapts to this machine's park overshoot, within {@code minSpinNanos}-{@code maxSpinNanos}. */
    LiveClock liveClock(long minSpinNanos, long maxSpinNanos);

    /** A wall clock that spins the last {@code spinNanos} of each wait. */
    LiveClock liveClock(long spinNanos);

    /** {@code inner} with the framework's audit of its hits around it (the target owns and closes it). */
    AuditedStore audited(KvBackend inner);

    /**
     * The run's store, checked as for every live cell (store, tiers, transport, faults; the emulated model's catalog
     * entries too, as the config names them), with its fault ({@link StorePlan#faults}); errors name {@code origin.apply(key)}.
     */
    StorePlan storePlan(RunConfig config, Function<String, String> origin);

    /**
     * A live cell's warm-up pass sent as fast as the target serves it ({@link TargetCell#warmupArrivals}): the first
     * {@code limit} of {@code whole}'s requests in order, each released as soon as fewer than {@code inFlight} are in flight.
     */
    ArrivalProcess unpaced(ArrivalProcess whole, int inFlight, long limit);

    /**
     * The sim twin of a real engine: the emulated model planned on {@code config} (the engine's scheduling) with the
     * engine's calibrated {@code model} shape, {@code hardware} and {@code kvDtype} instead of the config's catalog entries;
     * the plan probes its store path and runs the twin ({@link TwinPlan#probeLink}, {@link TwinPlan#withTwin}).
     */
    TwinPlan twinPlan(RunConfig config, ModelSpec model, HardwareSpec hardware, Dtype kvDtype);

    /**
     * One run of a live cell's twin on the sim clock from its {@code calibration} (no live cell needed): {@code config}
     * scheduled as the calibrated engine schedules, on its model and "hardware", its data path costed by the measured
     * store path. Deterministic: the same config and calibration give the same result.
     */
    CellResult twinRun(RunConfig config, TwinCalibration calibration);

    /**
     * The fetch path of the live cell {@code config} measured on loopback through the embedded store, as a transport
     * profile its sim twin reads; {@code machine} describes this machine for the profile. Null when the cell names no
     * transport.
     */
    TransportProfile loopbackProfile(RunConfig config, Map<String, String> machine) throws InterruptedException;

    /** Requests in {@code spec}'s workload. */
    long requestCount(CellSpec spec);

    /** Runs {@code cell} through the steps every cell takes and builds its row; wall time counts from {@code wallStartNanos}. */
    CellResult run(CellSpec spec, TargetCell cell, CellObserver observer, long wallStartNanos);

    /** Holds the framework found (looked up once, on first use). */
    final class Found {
        private Found() {}

        static final TargetFramework FRAMEWORK = ServiceLoader.load(
                        TargetFramework.class, TargetFramework.class.getClassLoader())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(
                        "no " + TargetFramework.class.getName() + " on the class path (the harness's core module)"));
    }
}
