package dev.kvlab.harness.internal.live;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.config.CacheState;
import dev.kvlab.harness.internal.CellAssembly;
import dev.kvlab.harness.internal.CellPlan;
import dev.kvlab.harness.internal.engine.ServingListener;
import dev.kvlab.harness.internal.engine.ServingModel;
import dev.kvlab.harness.internal.engine.WorkloadDriver;
import dev.kvlab.harness.internal.fault.LiveFaults;
import dev.kvlab.harness.internal.measure.Measurement;
import dev.kvlab.harness.internal.measure.ProgressView;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.KvBackends;
import dev.kvlab.workloads.api.ArrivalProcess;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.Workloads;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * One cell on the live clock: the same serving model as the sim, on wall time. The store is real (an embedded
 * cluster of this JVM over the chosen transport, or an external {@code kvlab://} cluster), KV blocks are real bytes
 * of the model's block size, every fetched block is verified; GPU time is emulated by precise waits. The harness's
 * own cost is measured: time the loop thread spends running the model per request, and how late events run.
 */
public final class LiveCell {

    private final CellPlan plan;
    private final UnaryOperator<KvBackend> wrap;
    private CellObserver observer = CellObserver.NONE;

    public LiveCell(CellPlan plan) {
        this(plan, UnaryOperator.identity());
    }

    /** Lets {@code o} watch the measured phase at every interval end (obs: live metrics); the store's own meters come from the backend where it can see them (the bundled store). */
    public LiveCell observedBy(CellObserver o) {
        this.observer = o == null ? CellObserver.NONE : o;
        return this;
    }

    /** With {@code wrap} applied to the opened backend (fault injection in tests). */
    public LiveCell(CellPlan plan, UnaryOperator<KvBackend> wrap) {
        this.plan = plan;
        this.wrap = wrap;
    }

    public CellResult run(long wallStartNanos) {
        var c = plan.config();
        var st = c.store();
        BackendOptions options = BackendOptions.defaults()
                .withTransport(plan.transportName())
                .withVerifyContent(true)
                .withTenant(c.workload().tenant())
                .withNodes(st.nodes())
                .withSegmentBytes(plan.storeCapacity() / st.nodes())
                .withTimeout(Duration.ofSeconds(10))
                .withExtra(c.store().backend().equals("bundled")
                        ? Map.of("lease-ttl", st.leaseTtl(), "seed", Long.toString(c.seed())) : Map.of());
        LiveLoop loop = new LiveLoop(plan.spinNanos());
        LiveFaults faults = LiveFaults.of(plan); // the config's fault, done for real (null: none)
        try (faults; AuditedBackend backend = new AuditedBackend(faults != null ? faults.open(options) : wrap.apply(KvBackends.discover().open(st.backend(), options)));
             LiveStore store = new LiveStore(plan, loop, backend)) {
            ServingModel model = new ServingModel(plan, loop, store, ServingListener.NONE);
            int bt = plan.blockTokens();
            long warmupRequests = 0;
            if (c.cacheState() == CacheState.HOT) {
                ArrivalProcess wp = c.warmup().fraction() >= 1 ? plan.workload().open(c.seed())
                        : plan.workload().open(c.seed(), warmupCount(c.warmup().fraction()));
                try (wp) {
                    WorkloadDriver warm = new WorkloadDriver(wp, model, loop, loop.now() + 1_000_000L, true, ServingListener.NONE, bt);
                    model.listener(warm);
                    warm.start();
                    loop.run(() -> (warm.done() || warm.error() != null) && store.idle());
                    if (warm.error() != null) throw warm.error();
                    warmupRequests = warm.released();
                }
            }
            long busyBefore = loop.busyNanos();
            long cpuBefore = loop.busyCpuNanos();
            long origin = loop.now() + 5_000_000L; // a moment to spare, so the first request is not late by construction
            Measurement m = new Measurement(c.slo(), plan.intervalNanos(), origin);
            ProgressView.watch(m, model, store, () -> backend.storeStats().orElse(null), backend::storeCalls, observer);
            WorkloadDriver driver;
            try (ArrivalProcess p = plan.workload().open(c.seed())) {
                driver = new WorkloadDriver(p, model, loop, origin, false, faults == null ? m : faults.measured(m, origin), bt);
                model.listener(driver);
                driver.start();
                WorkloadDriver d = driver;
                loop.run(() -> (d.done() || d.error() != null) && store.idle());
                if (driver.error() != null) throw driver.error();
            }
            m.finish(loop.now());
            double wall = (System.nanoTime() - wallStartNanos) / 1e9;
            long measuredBusy = loop.busyNanos() - busyBefore;
            long measuredCpu = loop.busyCpuNanos() - cpuBefore;
            Map<String, Object> extras = new LinkedHashMap<>();
            extras.put("harness_overhead_us_per_request", m.requests() == 0 ? Double.NaN : measuredBusy / 1e3 / m.requests());
            extras.put("harness_cpu_us_per_request", m.requests() == 0 ? Double.NaN : measuredCpu / 1e3 / m.requests());
            extras.put("harness_busy_share", m.spanNanos() > 0 ? (double) measuredBusy / m.spanNanos() : Double.NaN);
            extras.put("harness_event_p50_us", loop.eventBusy().getValueAtPercentile(50) / 1e3);
            extras.put("harness_event_p99_us", loop.eventBusy().getValueAtPercentile(99) / 1e3);
            extras.put("harness_events", loop.events());
            extras.put("event_lag_p50_us", (double) loop.lag().getValueAtPercentile(50));
            extras.put("event_lag_p99_us", (double) loop.lag().getValueAtPercentile(99));
            extras.put("event_lag_max_us", (double) loop.lag().getMaxValue());
            extras.put("io_seconds", store.ioNanos() / 1e9);
            extras.put("block_bytes", plan.blockBytes());
            extras.put("store_backend", backend.name());
            extras.put("transport_name", plan.transportName());
            store.rejections().forEach((why, n) -> extras.put("rejected_" + why.toLowerCase(Locale.ROOT), n));
            if (store.firstError() != null) extras.put("io_error", store.firstError());
            String emulated = "gpu time (roofline on " + plan.hardware().id() + ", precise waits)"
                    + (plan.transportName().equals("rdma-emu") ? "; NIC (rdma-emu)" : "");
            Map<String, String> describe = new LinkedHashMap<>();
            describe.put("clock", String.format(Locale.ROOT, "live (wall clock; waits park then spin the last %d us)", plan.spinNanos() / 1000));
            extras.put("audit_hits_checked", backend.hitsChecked());
            extras.put("audit_wrong_hits", backend.wrongHits());
            extras.put("audit_unaudited_blocks", store.unauditedBlocks());
            if (faults != null) faults.extras(extras);
            return CellAssembly.assemble(plan, m, model, store, warmupRequests, wall, emulated, extras, describe);
        }
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
