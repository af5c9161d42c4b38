package dev.kvlab.harness.internal.sim;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.config.CacheState;
import dev.kvlab.harness.internal.CellAssembly;
import dev.kvlab.harness.internal.CellPlan;
import dev.kvlab.harness.internal.engine.ServingListener;
import dev.kvlab.harness.internal.engine.ServingModel;
import dev.kvlab.harness.internal.engine.WorkloadDriver;
import dev.kvlab.harness.internal.fault.SimFaults;
import dev.kvlab.harness.internal.measure.Measurement;
import dev.kvlab.harness.internal.measure.ProgressView;
import dev.kvlab.transport.api.TransportModel;
import dev.kvlab.workloads.api.ArrivalProcess;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.Workloads;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One cell on the sim clock: the serving model on a {@link SimLoop}, the store's master under the virtual clock,
 * transfers costed by a transport model. Single-threaded and deterministic: the same plan (seed included) gives
 * the same result, wall time aside.
 */
public final class SimCell {

    private final CellPlan plan;
    private final SimStore.FaultHook faults;
    private final CellObserver observer;

    public SimCell(CellPlan plan, SimStore.FaultHook faults) {
        this(plan, faults, CellObserver.NONE);
    }

    /** A cell whose measured phase {@code observer} watches at every interval end (on this cell's thread). */
    public SimCell(CellPlan plan, SimStore.FaultHook faults, CellObserver observer) {
        this.plan = plan;
        this.faults = faults;
        this.observer = observer == null ? CellObserver.NONE : observer;
    }

    public CellResult run(long wallStartNanos) {
        var c = plan.config();
        SimLoop loop = new SimLoop();
        TransportModel tm = plan.transportModel();
        SimFaults injected = SimFaults.of(plan, loop); // the config's fault, modelled (null: none)
        SimStore store = new SimStore(plan, loop, loop.clock(), tm, injected != null ? injected : faults);
        if (injected != null) injected.attach(store);
        ServingModel model = new ServingModel(plan, loop, store, ServingListener.NONE);
        int bt = plan.blockTokens();
        long warmupRequests = 0;
        if (c.cacheState() == CacheState.HOT) {
            ArrivalProcess wp = c.warmup().fraction() >= 1 ? plan.workload().open(c.seed())
                    : plan.workload().open(c.seed(), warmupCount(c.warmup().fraction()));
            try (wp) {
                WorkloadDriver warm = new WorkloadDriver(wp, model, loop, 0, true, ServingListener.NONE, bt);
                model.listener(warm);
                warm.start();
                loop.run();
                if (warm.error() != null) throw warm.error();
                warmupRequests = warm.released();
            }
        }
        long origin = loop.now();
        Measurement m = new Measurement(c.slo(), plan.intervalNanos(), origin);
        ProgressView.watch(m, model, store, () -> store.master().stats(), store::masterCalls, observer);
        ArrivalProcess p = plan.workload().open(c.seed());
        WorkloadDriver driver;
        try (p) {
            driver = new WorkloadDriver(p, model, loop, origin, false, injected == null ? m : injected.measured(m, origin, plan), bt);
            model.listener(driver);
            driver.start();
            loop.run();
            if (driver.error() != null) throw driver.error();
        }
        if (model.inFlight() != 0) {
            StringBuilder sb = new StringBuilder("sim ended with " + model.inFlight() + " requests in flight:");
            for (var in : model.instances()) sb.append("\n  ").append(in.state());
            throw new IllegalStateException(sb.toString());
        }
        m.finish(loop.now());
        double wall = (System.nanoTime() - wallStartNanos) / 1e9;
        String emulated = "gpu time (roofline on " + plan.hardware().id() + "); data movement (transport model " + tm.name()
                + (tm.emulated() ? ", emulated" : ", calibrated") + ")";
        var ms = store.master().stats();
        Map<String, Object> extras = new LinkedHashMap<>();
        extras.put("sim_events", loop.events());
        extras.put("store_objects", ms.objects());
        extras.put("store_evicted_objects", ms.evictedObjects());
        extras.put("store_eviction_runs", ms.evictionRuns());
        extras.put("store_usage", ms.usage());
        if (injected != null) injected.extras(extras);
        Map<String, String> describe = new LinkedHashMap<>();
        describe.put("clock", "sim (discrete-event, virtual time)");
        return CellAssembly.assemble(plan, m, model, store, warmupRequests, wall, emulated, extras, describe);
    }

    private long warmupCount(double fraction) {
        long n = 0;
        try (RequestSource s = Workloads.open(plan.workload().spec(), plan.workload().namespace(), plan.config().seed())) {
            while (s.hasNext()) {
                s.next();
                n++;
            }
        }
        return Math.max(1, (long) Math.ceil(n * fraction));
    }
}
