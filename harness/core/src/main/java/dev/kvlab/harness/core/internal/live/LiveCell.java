package dev.kvlab.harness.core.internal.live;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.internal.cell.ServingCell;
import dev.kvlab.harness.core.internal.fault.LiveFaults;
import dev.kvlab.harness.spi.EventLoop;
import dev.kvlab.harness.spi.LinkProbe;
import dev.kvlab.harness.spi.MeasurementView;
import dev.kvlab.harness.spi.PhaseDriver;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.harness.spi.TargetCell;
import dev.kvlab.harness.spi.TargetFramework;
import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.MasterStats;
import dev.kvlab.transport.api.TransportModel;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

/**
 * One cell on the live clock: the same serving model and the same steps as the sim (a {@link TargetCell} run through
 * {@link TargetFramework#run}), on wall time. The store is real (an embedded cluster of this JVM over the chosen transport, built from the run's store
 * settings, or an external {@code kvlab://} cluster), KV blocks are real bytes of the model's block size, every
 * fetched block is verified; GPU time is emulated by precise waits. Before the warm-up the cell measures its own
 * fetch path ({@link LinkProbe}); {@code auto} decides on that link unless {@code transport_profile} names one. The
 * JIT is warmed up on the sim clock first ({@link JitWarmup}). The harness's own cost in the measured phase is
 * measured: its CPU per request ({@link HarnessCpu}), its wall time per event, how late events run, GC pauses and
 * JIT compilation.
 */
public final class LiveCell extends ServingCell {

    /** Rounds of the link probe at cell start. */
    public static final int PROBE_ROUNDS = 9;

    private final UnaryOperator<KvBackend> wrap;
    private CellObserver observer = CellObserver.NONE;
    private LiveLoop loop;
    private LiveStore store;
    private AuditedBackend backend;
    private LiveFaults faults;
    private LinkProbe probe, endProbe;
    private String endProbeError;
    private long busyBefore, gcBefore, jitBefore;
    private HarnessCpu.Snapshot cpuBefore;
    private int jitWarmupPasses;

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
        super(plan);
        this.wrap = wrap;
    }

    /** The options the cell opens its backend with: the embedded store is built from the same typed settings as the sim's master. */
    BackendOptions options() {
        var c = plan.config();
        var st = c.store();
        return BackendOptions.defaults()
                .withTransport(plan.transportName())
                .withTenant(c.workload().tenant())
                .withNodes(st.nodes())
                .withSegmentBytes(plan.storeCapacity() / st.nodes())
                .withTimeout(Duration.ofSeconds(10))
                .withMaster(plan.masterConfig());
    }

    public CellResult run(long wallStartNanos) {
        loop = new LiveLoop(plan.spinNanos());
        faults = LiveFaults.of(plan); // the config's fault, done for real (null: none)
        BackendOptions options = options();
        try (LiveFaults f = faults;
                AuditedBackend b = new AuditedBackend(
                        f != null
                                ? f.open(options)
                                : wrap.apply(KvBackends.discover()
                                        .open(plan.config().store().backend(), options)));
                LiveStore s = new LiveStore(plan, loop, b)) {
            backend = b;
            store = s;
            try {
                probe = s.probe(PROBE_ROUNDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while measuring the link", e);
            }
            if (plan.config().transportProfile() == null) s.linkModel(probe.model(plan.transportName()));
            jitWarmupPasses = JitWarmup.run(plan);
            CellResult r = TargetFramework.get().run(plan.spec(), this, observer, wallStartNanos);
            // the same probe again at the end, for the sim twin: the machine's speed drifts over a cell's seconds
            // (a probe at the start alone was 15-20% off a cell's own fetches now and then); best effort, the
            // measured result is complete already
            try {
                endProbe = s.probe(PROBE_ROUNDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                endProbeError = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
            return r;
        }
    }

    /** What the cell measured of its fetch path at its start (null before {@link #run}). */
    public LinkProbe probe() {
        return probe;
    }

    /** The link the sim twin runs on: the start and end probes bracketed ({@link LinkProbe#bracket}), or the start's alone. */
    public LinkProbe twinProbe() {
        return LinkProbe.twinOf(probe, endProbe);
    }

    /** What the twin's link came from, for the twin's row: the end probe (or why it could not run) and the bracketed bandwidth. */
    public Figures twinLinkExtras() {
        return LinkProbe.twinLinkExtras(endProbe, endProbeError, twinProbe());
    }

    /** The model the cell's {@code auto} decided on. */
    public TransportModel linkModel() {
        return store.linkModel();
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    protected LiveStore remote() {
        return store;
    }

    @Override
    public long phaseOrigin(boolean warmup) {
        // a moment to spare, so the first request is not late by construction
        return loop.now() + (warmup ? 1_000_000L : 5_000_000L);
    }

    @Override
    public void runPhase(PhaseDriver d) {
        loop.run(() -> (d.done() || d.error() != null) && store.idle());
    }

    @Override
    public ServingListener faultWrapped(ServingListener m, long origin, LongSupplier measuredRequests) {
        return faults == null ? m : faults.measured(m, origin, measuredRequests.getAsLong());
    }

    @Override
    public MasterStats masterStats() {
        return backend.storeStats().orElse(null);
    }

    @Override
    public Map<String, Long> masterCalls() {
        return backend.storeCalls();
    }

    @Override
    public void measuredPhaseStarts() {
        loop.resetFigures();
        busyBefore = loop.busyNanos();
        cpuBefore = store.cpu().snapshot(loop);
        gcBefore = gcMillis();
        jitBefore = jitMillis();
    }

    /** Milliseconds the JIT compilers have spent so far (-1 where the JVM does not say). */
    private static long jitMillis() {
        var c = java.lang.management.ManagementFactory.getCompilationMXBean();
        return c != null && c.isCompilationTimeMonitoringSupported() ? c.getTotalCompilationTime() : -1;
    }

    /** Milliseconds the JVM's collectors have spent so far (all collectors). */
    private static long gcMillis() {
        long t = 0;
        for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans())
            t += Math.max(0, gc.getCollectionTime());
        return t;
    }

    @Override
    public void extras(MeasurementView m, Figures extras) {
        servingExtras(m, extras);
        HarnessCpu.extras(cpuBefore, store.cpu().snapshot(loop), m.requests(), extras);
        long measuredBusy = loop.busyNanos() - busyBefore;
        Columns.HARNESS_OVERHEAD_US_PER_REQUEST.put(
                extras, m.requests() == 0 ? Double.NaN : measuredBusy / 1e3 / m.requests());
        Columns.HARNESS_BUSY_SHARE.put(extras, m.spanNanos() > 0 ? (double) measuredBusy / m.spanNanos() : Double.NaN);
        Columns.HARNESS_EVENT_P50_US.put(extras, loop.eventBusy().getValueAtPercentile(50) / 1e3);
        Columns.HARNESS_EVENT_P99_US.put(extras, loop.eventBusy().getValueAtPercentile(99) / 1e3);
        Columns.HARNESS_EVENTS.put(extras, loop.events());
        Columns.EVENT_LAG_P50_US.put(extras, (double) loop.lag().getValueAtPercentile(50));
        Columns.EVENT_LAG_P99_US.put(extras, (double) loop.lag().getValueAtPercentile(99));
        Columns.EVENT_LAG_MAX_US.put(extras, (double) loop.lag().getMaxValue());
        Columns.GC_PAUSE_MS.put(extras, (double) (gcMillis() - gcBefore));
        long jit = jitMillis();
        Columns.JIT_WARMUP_PASSES.put(extras, jitWarmupPasses);
        Columns.JIT_COMPILE_MS.put(extras, jit < 0 || jitBefore < 0 ? Double.NaN : (double) (jit - jitBefore));
        Columns.IO_SECONDS.put(extras, store.ioNanos() / 1e9);
        Columns.BLOCK_BYTES.put(extras, plan.blockBytes());
        Columns.STORE_BACKEND.put(extras, backend.name());
        Columns.TRANSPORT_NAME.put(extras, plan.transportName());
        TransportModel link = store.linkModel();
        Columns.LINK_MODEL.put(extras, link.name());
        Columns.LINK_SOURCE.put(
                extras, plan.config().transportProfile() == null ? "measured at cell start" : "transport_profile");
        probe.extras(extras);
        Columns.LINK_PROBE_REPUTS.put(extras, probe.reputs());
        store.rejections().forEach((why, n) -> Columns.rejected(why).put(extras, n));
        if (store.firstError() != null) Columns.IO_ERROR.put(extras, store.firstError());
        Columns.AUDIT_HITS_CHECKED.put(extras, backend.hitsChecked());
        Columns.AUDIT_WRONG_HITS.put(extras, backend.wrongHits());
        Columns.AUDIT_UNAUDITED_BLOCKS.put(extras, store.unauditedBlocks());
        if (faults != null) faults.extras(extras);
    }

    @Override
    public String emulated() {
        return "gpu time (roofline on " + plan.hardware().id() + ", precise waits)"
                + (plan.transportName().equals("rdma-emu") ? "; NIC (rdma-emu)" : "");
    }

    @Override
    public String describe() {
        return String.format(
                Locale.ROOT, "live (wall clock; waits park then spin the last %d us)", plan.spinNanos() / 1000);
    }
}
