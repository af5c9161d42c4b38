package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.llama.internal.KvStateLayout;
import dev.kvlab.harness.llama.internal.LlamaLibrary;
import dev.kvlab.harness.llama.internal.LlamaModel;
import dev.kvlab.harness.spi.AuditedStore;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.EventLoop;
import dev.kvlab.harness.spi.LiveClock;
import dev.kvlab.harness.spi.MeasurementView;
import dev.kvlab.harness.spi.PhaseDriver;
import dev.kvlab.harness.spi.Server;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.harness.spi.StoreFaults;
import dev.kvlab.harness.spi.StorePlan;
import dev.kvlab.harness.spi.TargetCell;
import dev.kvlab.harness.spi.TargetFramework;
import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.MasterStats;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * One cell on the {@code llama.cpp} target, on the live clock, through the same steps as every cell
 * ({@link TargetFramework#run}): {@code cluster.instances} llama.cpp contexts on the model, each run by its own worker thread
 * ({@link EngineInstance}), and kvlab's store (the embedded bundled store over the configured transport, or
 * {@code kvlab://}; behind the live cells' audit and fault injection) holding the real KV blocks. Prefill, decode,
 * the layout conversion, the transfers and the restores are all real work on this machine's CPU; nothing is
 * emulated. {@code cache_state: cold} starts with fresh contexts and an empty store, {@code hot} primes both with
 * the warm-up pass.
 */
final class LlamaCell implements TargetCell {

    private static final long SPIN_NANOS = 50_000;
    /** Timed rounds of each size of the direct handover path's probe ({@link PdHandover#probe}). */
    static final int HANDOVER_PROBE_ROUNDS = 5;

    private final RunConfig config;
    private final StorePlan storePlan;
    private final LlamaTargetConfig.Resolved target;
    private RealKvTotals totals;
    private final String modelSha256;
    private final boolean synthesized;
    private final EngineTwin twin;
    private LiveClock loop;
    private LlamaServer server;
    private AuditedStore backend;
    private StoreFaults faults;
    private KvStateLayout layout;
    private KvNamespace ns;
    private EngineInstance.Shape shape;
    private long busyBefore;
    private String systemInfo = "";
    private String library = "";
    /** The cell's instances while it serves. */
    private List<EngineInstance> live = List.of();
    /** The measured phase has started (restore checks wait for its end, after its figures are taken). */
    private boolean measuring;
    /** The engine serving this cell: fresh, or kept from an earlier probe of the same cell. */
    private ParkedEngine engine;
    /** What this cell took over from an earlier probe, or why it started fresh. */
    private String reuse;
    /** A fresh engine's twin planned on its capacity search's calibration: how (null: it timed its own, or reused). */
    private String calibrationReused;

    private boolean reused;
    /** The audit's counts when this cell started (a kept store's are cumulative). */
    private long wrongBefore, checkedBefore;

    private long measuredStartNanos, wallStart, objectsAtStart;
    private Map<String, Long> callsAtStart = Map.of();

    /** {@code storePlan}: the run's store, transport and fault settings, validated as for every live cell. */
    LlamaCell(RunConfig config, StorePlan storePlan, LlamaTargetConfig.Resolved target, GgufModelInfo model) {
        this.config = config;
        this.storePlan = storePlan;
        this.target = target;
        this.modelSha256 = model.sha256();
        this.synthesized = model.synthVocab();
        this.twin = new EngineTwin(config, model, target.threads());
    }

    /** {@code live} (this cell's result) with its sim twin's figures, when the cell calibrated its engine. */
    CellResult withTwin(CellResult live) {
        return twin.attach(live);
    }

    /** What this cell's engine is, for the summary's {@code emulated} and the report. */
    String engineLabel() {
        return "nothing: real engine on CPU (llama.cpp in-process, " + target.threads() + " thread(s) per instance), "
                + (synthesized
                        ? "synthesized random weights"
                        : "weights of " + target.model().getFileName());
    }

    CellResult run(long wallStartNanos, CellObserver observer) {
        wallStart = wallStartNanos;
        String[] why = {null};
        String key = ParkedEngine.key(config, why);
        ParkedEngine e = key == null ? null : ParkedEngine.take(key);
        if (e != null) {
            String stale = e.stale();
            if (stale != null) {
                reuse = "fresh: the kept engine's state may no longer be what a warm-up leaves (" + stale + ")";
                e.close();
                e = null;
            }
        }
        reused = e != null;
        if (reused) {
            reuse = "reused from probe " + e.probes + " of this cell: library, model, " + e.contexts.size()
                    + " context(s), calibration, store, and "
                    + "the state its warm-up of " + e.primedBy
                    + " requests primed, put back (contexts' KV and local tier as the warm-up left them, "
                    + "router state; the store unchanged since: nothing evicted or unwritten); warm-up skipped"
                    + (e.primedLosses == null
                            ? ""
                            : "; the warm-up's local tier " + e.primedLosses
                                    + ", so its kept blocks are what a warm-up at "
                                    + "probe 1's rate left (the least recently used margin may differ at this rate)");
            for (EngineInstance in : e.instances) in.primed(true);
            e.server.routerState(e.routerState);
        } else {
            if (reuse == null)
                reuse = key == null
                        ? "fresh: not kept (" + why[0] + ")"
                        : "fresh: first probe of this cell (its engine is kept for the next)";
            e = open(key);
        }
        engine = e;
        boolean keep = false;
        try {
            totals = e.totals;
            systemInfo = e.systemInfo;
            library = e.library;
            layout = e.layout;
            ns = e.ns;
            shape = e.shape;
            loop = e.loop;
            server = e.server;
            backend = e.backend;
            faults = e.faults;
            live = e.instances;
            if (reused && e.calibration != null) {
                // the extent its open measured (a pass over the whole workload, the same for every probe of the key)
                twin.shape(shape, e.most[0], e.most[1], e.ns.blockTokens());
                twin.calibrated(
                        e.calibration,
                        shape.options(target.threads(), target.flashAttention()),
                        shape.sequences(),
                        catalogDtype(ns.kvDtype()));
            }
            CellSpec spec = LlamaTarget.spec(config, k -> null, ns.modelId(), ns.kvDtype());
            wrongBefore = backend.wrongHits();
            checkedBefore = backend.hitsChecked();
            if (e.pd != null) twin.handover(e.handoverPath, e.pd.viaStore());
            Roofline priced = twin.enabled() ? twin.roofline() : null;
            for (EngineInstance in : live) in.priceSteps(priced);
            twin.probeStart(loop, backend);
            CellResult r = TargetFramework.get().run(spec, this, observer, wallStartNanos);
            twin.probeEnd(loop, backend);
            e.probes++;
            keep = key != null && e.primedBy >= 0;
            return r;
        } finally {
            if (keep) ParkedEngine.park(e);
            else e.close();
        }
    }

    /** A fresh engine for this cell: library, model, contexts, calibration, store, instances, router, loop. */
    private ParkedEngine open(String key) {
        LlamaLibrary lib = LlamaLibrary.load();
        CellSpec probe = LlamaTarget.spec(config, k -> null, "probe", "f16");
        int[] most = WorkloadExtent.of(probe);
        ParkedEngine e = new ParkedEngine(key, LlamaModel.load(lib, target.model()));
        try {
            e.systemInfo = lib.systemInfo();
            e.library = lib.install().describe();
            e.most = most;
            e.shape = EngineInstance.Shape.of(target, config.tiers().local(), most[0], most[1], probe.blockTokens());
            for (int i = 0; i < config.cluster().instances(); i++)
                e.contexts.add(e.model.newContext(e.shape.options(target.threads(), target.flashAttention())));
            e.layout = EngineInstance.probeLayout(e.contexts.getFirst());
            e.ns = new KvNamespace(
                    modelSha256, dtype(e.layout.layers().getFirst().kType()), e.layout.vTrans(), probe.blockTokens());
            // the twin's roofline: this engine's prefill, decode and loads, timed on a context like its instances'
            // before it serves
            if (target.calibrateTokens() > 0) {
                twin.shape(e.shape, most[0], most[1], probe.blockTokens());
                double age = twin.calibrate(
                        e.model,
                        e.shape.options(target.threads(), target.flashAttention()),
                        e.shape.sequences(),
                        config.cluster().instances(),
                        target.calibrateTokens(),
                        probe.blockTokens(),
                        catalogDtype(e.ns.kvDtype()),
                        config.measurement().earlyStop().enabled()); // a capacity probe
                if (!Double.isNaN(age))
                    calibrationReused = String.format(
                            java.util.Locale.ROOT,
                            "twin calibration: the capacity search's, timed %.0f s before this engine opened (what the "
                                    + "prediction rests on; not timed again)",
                            age);
                e.calibration = twin.calibration();
            }
            CellSpec spec = LlamaTarget.spec(config, k -> null, e.ns.modelId(), e.ns.kvDtype());
            e.loop = TargetFramework.get().liveClock(SPIN_NANOS);
            long payload = e.layout.bytesPerToken() * spec.blockTokens();
            e.faults = storePlan.faults(KvBlockObject.objectBytes(payload));
            BackendOptions options = options();
            e.backend = TargetFramework.get()
                    .audited(
                            e.faults != null
                                    ? e.faults.open(options)
                                    : KvBackends.discover().open(config.store().backend(), options));
            KvBlockStore store =
                    new KvBlockStore(e.backend, e.ns, payload, config.store().replicas(), e.totals);
            int n = e.contexts.size(), prefill = prefillInstances(config);
            if (prefill < n) {
                LiveClock loopRef = e.loop;
                e.pd = handover(
                        config,
                        storePlan,
                        store,
                        new PdHandover.Sizes(spec.blockTokens(), e.layout),
                        2 * e.shape.sequences(),
                        most[0],
                        loopRef::now,
                        e.totals);
                if (e.calibration != null) e.handoverPath = e.pd.probe(HANDOVER_PROBE_ROUNDS);
            }
            for (int i = 0; i < n; i++) {
                EngineInstance.Role role = e.pd == null
                        ? EngineInstance.Role.COLOCATED
                        : i < prefill ? EngineInstance.Role.PREFILL : EngineInstance.Role.DECODE;
                e.instances.add(new EngineInstance(
                        i,
                        e.contexts.get(i),
                        e.shape,
                        e.layout,
                        config.tiers(),
                        config.policy(),
                        store,
                        most[2],
                        spec.blockTokens(),
                        e.totals,
                        e.loop::now,
                        target.verifyEvery(),
                        target.verifyTolerance(),
                        role,
                        e.pd));
            }
            if (e.pd != null) {
                List<EngineInstance> prefills = List.copyOf(e.instances.subList(0, prefill));
                e.pd.wire(e.instances.subList(prefill, n), () -> {
                    for (EngineInstance in : prefills) in.slotFree();
                });
                if (e.faults != null && e.faults.kind() == dev.kvlab.harness.api.config.Fault.CORRUPT) {
                    StoreFaults f = e.faults;
                    LiveClock l = e.loop;
                    e.pd.corruptWhen(() -> f.active(l.now()), f.corruptFraction());
                }
            }
            e.server = new LlamaServer(
                    e.loop,
                    e.instances,
                    prefill,
                    config.cluster().router(),
                    config.cluster().cacheAware(),
                    config.seed());
            e.bytes = storePlan.storeCapacity() + (long) e.contexts.size() * e.shape.cells() * e.layout.bytesPerToken();
            return e;
        } catch (RuntimeException | Error x) {
            e.close();
            throw x;
        }
    }

    /** The instances that prefill: all when colocated; disaggregated, {@code cluster.prefill_instances} (0: half, as the emulated model). */
    static int prefillInstances(RunConfig c) {
        int n = c.cluster().instances();
        if (c.pd() != dev.kvlab.harness.api.config.Pd.DISAGGREGATED) return n;
        return c.cluster().prefillInstances() > 0 ? c.cluster().prefillInstances() : (n + 1) / 2;
    }

    /**
     * The handover of a disaggregated cell {@code c} as its config says it (path, transport and its link, decode
     * instances, decode host, seed): {@code slots} handovers per decode instance at once, prompts of at most
     * {@code maxTokens} tokens; {@code store}: the cell's (the store path's; null for a direct one measured alone).
     */
    static PdHandover handover(
            RunConfig c,
            StorePlan storePlan,
            KvBlockStore store,
            PdHandover.Sizes sizes,
            int slots,
            int maxTokens,
            java.util.function.LongSupplier clock,
            RealKvTotals totals) {
        return new PdHandover(
                pdTransfer(c),
                storePlan.transportName(),
                dev.kvlab.transport.api.TransportConfig.defaults().withLink(storePlan.link()),
                store,
                sizes,
                c.cluster().instances() - prefillInstances(c),
                slots,
                maxTokens,
                clock,
                totals,
                c.seed(),
                LlamaTarget.decodeNetns(c));
    }

    /** The handover path of a disaggregated cell ({@code pd_transfer}; absent: direct). */
    static dev.kvlab.harness.api.config.PdTransfer pdTransfer(RunConfig c) {
        return c.pdTransfer() == null ? dev.kvlab.harness.api.config.PdTransfer.DIRECT : c.pdTransfer();
    }

    private BackendOptions options() {
        var st = config.store();
        return BackendOptions.defaults()
                .withTransport(storePlan.transportName())
                .withTenant(config.workload().tenant())
                .withNodes(st.nodes())
                .withSegmentBytes(storePlan.storeCapacity() / st.nodes())
                .withTimeout(Duration.ofSeconds(10))
                .withMaster(storePlan.masterConfig());
    }

    /** llama.cpp's name of a ggml KV type. */
    static String dtype(int ggmlType) {
        return switch (ggmlType) {
            case 0 -> "f32";
            case 1 -> "f16";
            case 30 -> "bf16";
            case 8 -> "q8_0";
            default -> "ggml" + ggmlType;
        };
    }

    /** The catalog's dtype of the same width as llama.cpp's KV type (q8_0: about a byte per value). */
    static Dtype catalogDtype(String ggml) {
        return switch (ggml) {
            case "f32" -> Dtype.FP32;
            case "bf16" -> Dtype.BF16;
            case "q8_0" -> Dtype.FP8;
            default -> Dtype.FP16;
        };
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public Server server() {
        return server;
    }

    @Override
    public long wrongHitsUsed() {
        return backend.wrongHits() - wrongBefore + totals.handoverWrongHits.sum();
    }

    @Override
    public long phaseOrigin(boolean warmup) {
        return loop.now() + 5_000_000L;
    }

    @Override
    public void runPhase(PhaseDriver d) {
        loop.run(() -> (d.done() || d.error() != null) && server.inFlight() == 0 && server.idle());
        if (!measuring) {
            checkRestores(); // after the warm-up: nothing measured is waiting
            // what the warm-up primed, for a later probe of this cell to take over
            engine.primedBy = d.released();
            engine.routerState = server.routerState();
            if (engine.key != null) {
                java.util.List<String> lost = new java.util.ArrayList<>();
                for (int i = 0; i < live.size(); i++) {
                    live.get(i).primed(false);
                    String why = live.get(i).stale();
                    if (why != null) lost.add(why.replace("the local tier ", "") + " on instance " + i);
                }
                engine.primedLosses = lost.isEmpty() ? null : String.join(" and ", lost);
            }
        }
    }

    /**
     * The warm-up is sent as fast as the engines serve it, every sequence busy. A cell without a cache tier keeps nothing
     * of a request after it (each sequence is cleared): one request per sequence primes its engines as the whole pass
     * would (a 240-request pass at a low probe's rate took as long as the probe). A cell with a cache tier sends the
     * whole pass, in the workload's order: its kept prefixes and store objects are what the pass leaves (the local
     * tier's least recently used margin may differ from a pass at the probe's rate, as concurrent requests complete in
     * another order). Sent at the probe's rate instead, check 27's local-only warm-up at 2 req/s took 120 s of a 243 s
     * probe. (Sending it faster once seemed to make a later probe find the store changed by its measured phase: that
     * was the master's half-second-old object count, fixed by {@code storeStatsNow}.)
     */
    /**
     * Without a cache tier a cell keeps nothing of a request (each sequence is cleared after it), so a cold cell is warmed
     * as a hot one: measured on a fresh engine, its first requests measured the JIT and first-touched memory (check 28's
     * shape: the decode instance's first two requests decoded at 5.3 and 4.8 ms a token against 2.4 after, the top 2% of
     * the cell's token gaps).
     */
    @Override
    public boolean warmsColdCells() {
        return !config.tiers().local() && !config.tiers().remote();
    }

    @Override
    public dev.kvlab.workloads.api.ArrivalProcess warmupArrivals(dev.kvlab.workloads.api.ArrivalProcess whole) {
        boolean keeps = config.tiers().local() || config.tiers().remote();
        int slots = Math.max(1, live.size() * shape.sequences());
        return TargetFramework.get().unpaced(whole, slots, keeps ? Long.MAX_VALUE : slots);
    }

    @Override
    public long primedBy() {
        return reused ? engine.primedBy : -1;
    }

    /**
     * The sampled restore checks of the phase just ended, on each instance's engine thread with nothing in flight (off
     * the measured path: the measured phase's are run after its figures are taken, {@link #extras}); a mismatch fails the cell.
     */
    private void checkRestores() {
        for (EngineInstance in : live) in.checkRestores();
        String mismatch = totals.logitMismatch.get();
        if (mismatch != null) throw new IllegalStateException("verify_restore failed: " + mismatch);
    }

    @Override
    public ServingListener faultWrapped(ServingListener m, long origin, LongSupplier n) {
        return faults == null ? m : faults.measured(m, origin, n.getAsLong());
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
        measuring = true;
        measuredStartNanos = System.nanoTime();
        objectsAtStart = objectsWithPuts();
        callsAtStart = Map.copyOf(backend.storeCalls());
        totals.reset();
        loop.resetFigures();
        busyBefore = loop.busyNanos();
    }

    /**
     * The store's objects, the puts in progress counted as objects (-1: no statistics), read now: the half-second-old
     * figures an event loop reads missed the link probe's objects put just before the measured phase (the kept engine's
     * third probe then started fresh, "changed the store's object count by 24"); a put issued before the phase (a
     * warm-up's last write-back) that ends during it does not change the count.
     */
    private long objectsWithPuts() {
        return backend.storeStatsNow().map(st -> st.objects() + st.processing()).orElse(-1L);
    }

    /** The store calls made since {@code before} (those whose count moved), for saying why a kept engine is stale. */
    private static String callsSince(Map<String, Long> before, Map<String, Long> now) {
        StringBuilder b = new StringBuilder();
        for (var e : new java.util.TreeMap<>(now).entrySet()) {
            long d = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            if (d != 0)
                b.append(b.isEmpty() ? "" : ", ").append(e.getKey()).append(' ').append(d);
        }
        return b.isEmpty() ? "none" : b.toString();
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static double gbPerS(long bytes, long nanos) {
        return nanos == 0 ? Double.NaN : (double) bytes / nanos;
    }

    @Override
    public void extras(MeasurementView m, Figures x) {
        checkRestores(); // the measured phase's sampled checks, now that its figures are taken
        long objectsNow = objectsWithPuts();
        if (objectsAtStart < 0 || objectsNow < 0) engine.measuredAdded = Long.MIN_VALUE;
        else engine.measuredAdded += objectsNow - objectsAtStart;
        if (objectsNow != objectsAtStart) engine.measuredCalls = callsSince(callsAtStart, backend.storeCalls());
        long n = m.requests();
        Columns.TARGET_KIND.put(x, LlamaTarget.KIND);
        LlamaColumns.ENGINE.put(x, engineLabel());
        Columns.TARGET_MODEL.put(x, target.model().toString());
        LlamaColumns.TARGET_MODEL_SHA256.put(x, modelSha256);
        LlamaColumns.TARGET_THREADS.put(x, target.threads());
        LlamaColumns.ENGINE_KV_LAYOUT.put(x, layout.describe());
        LlamaColumns.ENGINE_SYSTEM_INFO.put(x, systemInfo);
        LlamaColumns.ENGINE_LIBRARY.put(x, library);
        LlamaColumns.ENGINE_REUSE.put(x, calibrationReused == null ? reuse : reuse + "; " + calibrationReused);
        LlamaColumns.ENGINE_SETUP_MS.put(x, (measuredStartNanos - wallStart) / 1e6);
        boolean external = !"bundled".equals(config.store().backend());
        Columns.CACHE_STATE_PROTOCOL.put(
                x,
                config.cacheState() == dev.kvlab.harness.api.config.CacheState.HOT
                        ? "primed by the warm-up pass (the instances' kept prefixes and the store)"
                        : "fresh contexts"
                                + (warmsColdCells()
                                        ? " warmed by " + engine.primedBy
                                                + " unmeasured request(s) that no tier keeps anything of"
                                        : "")
                                + "; "
                                + (external
                                        ? "the external store " + config.store().backend()
                                                + " is not emptied (blocks of earlier runs of this model hit)"
                                        : "the embedded store starts empty"));
        LlamaColumns.KV_NAMESPACE.put(x, ns.key(0).substring(0, ns.key(0).lastIndexOf('/') + 1));
        Columns.FETCHED_TOKENS.put(x, m.remoteHitTokens());
        Columns.ENGINE_KV_BYTES_PER_TOKEN.put(x, layout.bytesPerToken());
        LlamaColumns.BLOCK_OBJECT_BYTES.put(x, KvBlockObject.objectBytes(layout.bytesPerToken() * ns.blockTokens()));
        LlamaColumns.FETCHED_BYTES_PER_FETCHED_TOKEN.put(
                x, m.remoteHitTokens() == 0 ? Double.NaN : (double) m.fetchedBytes() / m.remoteHitTokens());
        LlamaColumns.ENGINE_PREFILL_TOKENS.put(x, totals.prefillTokens.sum());
        Columns.ENGINE_PREFILL_TOKENS_PER_S.put(
                x,
                totals.prefillNanos.sum() == 0
                        ? Double.NaN
                        : totals.prefillTokens.sum() * 1e9 / totals.prefillNanos.sum());
        LlamaColumns.ENGINE_DECODE_MS_PER_TOKEN.put(
                x,
                totals.decodeTokens.sum() == 0 ? Double.NaN : ms(totals.decodeNanos.sum()) / totals.decodeTokens.sum());
        long restores = totals.restores.sum();
        LlamaColumns.RESTORES.put(x, restores);
        LlamaColumns.RESTORE_MS_MEAN.put(x, restores == 0 ? Double.NaN : ms(totals.restoreNanos.sum()) / restores);
        LlamaColumns.TRANSFER_MS_TOTAL.put(x, ms(totals.transferNanos.sum()));
        LlamaColumns.VERIFY_MS_TOTAL.put(x, ms(totals.verifyNanos.sum()));
        LlamaColumns.SPLIT_MS_TOTAL.put(x, ms(totals.splitNanos.sum()));
        LlamaColumns.SPLIT_GB_PER_S.put(x, gbPerS(totals.splitBytes.sum(), totals.splitNanos.sum()));
        LlamaColumns.ASSEMBLE_MS_TOTAL.put(x, ms(totals.assembleNanos.sum()));
        LlamaColumns.ASSEMBLE_GB_PER_S.put(x, gbPerS(totals.assembleBytes.sum(), totals.assembleNanos.sum()));
        Columns.WRITTEN_BACK_BLOCKS.put(x, totals.writtenBlocks.sum());
        Columns.WRITE_BACK_SKIPPED.put(x, totals.writeSkipped.sum());
        totals.writeFailures()
                .forEach((why, k) -> LlamaColumns.llamaWriteBackFailed(why).put(x, k));
        if (totals.writeError() != null) LlamaColumns.WRITE_BACK_ERROR.put(x, totals.writeError());
        LlamaColumns.POLICY_RECOMPUTED_REQUESTS.put(x, totals.policyRecomputed.sum());
        shape.extras(x);
        totals.engineExtras(x);
        LlamaColumns.VERIFY_RESTORE.put(
                x,
                target.verifyEvery() == 0
                        ? "off"
                        : "1 in " + target.verifyEvery() + " restores per instance, tolerance "
                                + target.verifyTolerance()
                                + " (absolute, next-token logits, against a recompute in the restore's batches, run after the phase "
                                + "on the instance's context with nothing in flight: off the measured path)");
        LlamaColumns.VERIFY_RESTORE_SKIPPED.put(x, totals.logitChecksSkipped.sum());
        LlamaColumns.VERIFY_RESTORE_CHECKS.put(x, totals.logitChecks.sum());
        LlamaColumns.VERIFY_RESTORE_MAX_LOGIT_DIFF.put(
                x, totals.logitChecks.sum() == 0 ? Double.NaN : totals.logitMaxDiff.get());
        LlamaColumns.VERIFY_RESTORE_MS_TOTAL.put(x, ms(totals.logitCheckNanos.sum()));
        totals.rejections().forEach((why, k) -> LlamaColumns.llamaRejected(why).put(x, k));
        Columns.AUDIT_HITS_CHECKED.put(x, backend.hitsChecked() - checkedBefore);
        Columns.AUDIT_WRONG_HITS.put(x, backend.wrongHits() - wrongBefore);
        Columns.AUDIT_UNAUDITED_BLOCKS.put(x, totals.unaudited.sum());
        Columns.STORE_BACKEND.put(x, backend.name());
        Columns.TRANSPORT_NAME.put(x, storePlan.transportName());
        Columns.HARNESS_OVERHEAD_US_PER_REQUEST.put(x, n == 0 ? Double.NaN : (loop.busyNanos() - busyBefore) / 1e3 / n);
        Columns.EVENT_LAG_P50_US.put(x, (double) loop.lag().getValueAtPercentile(50));
        Columns.EVENT_LAG_P99_US.put(x, (double) loop.lag().getValueAtPercentile(99));
        pdExtras(m, x);
        twin.extras(
                x,
                LlamaTarget.spec(config, k -> null, ns.modelId(), ns.kvDtype())
                        .workload()
                        .spec(),
                ns.blockTokens());
        if (faults != null) faults.extras(x);
    }

    /**
     * The handover's figures (measured requests, from the measurement) and what the decoding instances met; for a
     * colocated cell 0 handed over, NaN for the handover's times (there is none), with the reason.
     */
    private void pdExtras(MeasurementView m, Figures x) {
        boolean pd = engine.pd != null;
        LlamaColumns.PD_PREFILL_INSTANCES.put(x, prefillInstances(config));
        LlamaColumns.PD_TRANSFER_PATH.put(x, pd ? pdTransfer(config).label() : "none (colocated: no handover)");
        Columns.HANDOVER_BYTES.put(x, m.handoverBytes());
        Columns.HANDOVER_TOKENS.put(x, m.handoverTokens());
        LlamaColumns.HANDOVERS.put(x, m.handovers());
        LlamaColumns.HANDOVER_TRANSFER_MS_MEAN.put(
                x,
                m.handoverTransfersTimed() == 0
                        ? Double.NaN
                        : ms(m.handoverTransferNanos()) / m.handoverTransfersTimed());
        LlamaColumns.HANDOVER_RESTORE_MS_MEAN.put(
                x, m.handovers() == 0 ? Double.NaN : ms(m.handoverRestoreNanos()) / m.handovers());
        LlamaColumns.HANDOVER_BYTES_PER_TOKEN.put(
                x, m.handoverTokens() == 0 ? Double.NaN : (double) m.handoverBytes() / m.handoverTokens());
        Columns.DECODE_PREFILL_TOKENS.put(x, totals.decodeSidePromptTokens.sum());
        Columns.PD_FALLBACKS.put(x, m.pdFallbacks());
        long steps = totals.decodingSteps.sum();
        Columns.DECODE_STEPS_WITH_PROMPT_SHARE.put(
                x, steps == 0 ? Double.NaN : (double) totals.decodingStepsWithPrompt.sum() / steps);
        Columns.DECODE_STEPS_DESCHEDULED_SHARE.put(
                x, steps == 0 ? Double.NaN : (double) totals.decodingStepsDescheduled.sum() / steps);
        LlamaColumns.DECODE_STEPS.put(x, steps);
        LlamaColumns.HANDOVER_CORRUPTED.put(x, totals.handoverCorrupted.sum());
        LlamaColumns.HANDOVER_AUDITED_OBJECTS.put(x, totals.handoverAudited.sum());
        LlamaColumns.HANDOVER_WRONG_HITS.put(x, totals.handoverWrongHits.sum());
        Map<String, org.HdrHistogram.Histogram> st = m.pdStages();
        java.util.function.BiFunction<String, Double, Double> pct = (stage, p) -> {
            var h = st.get(stage);
            return h == null || h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(p) / 1e3;
        };
        Columns.PD_PREFILL_MS_P50.put(x, pct.apply("prefill", 50.0));
        Columns.PD_HANDOVER_MS_P50.put(x, pct.apply("handover", 50.0));
        Columns.PD_DECODE_QUEUE_MS_P50.put(x, pct.apply("decode_queue", 50.0));
        Columns.PD_RESTORE_MS_P50.put(x, pct.apply("restore", 50.0));
        Columns.PD_FIRST_DECODE_STEP_MS_P50.put(x, pct.apply("first_decode_step", 50.0));
        LlamaColumns.PD_PREFILL_QUEUE_MS_P99.put(x, pct.apply("prefill_queue", 99.0));
        LlamaColumns.PD_PREFILL_MS_P99.put(x, pct.apply("prefill", 99.0));
        LlamaColumns.PD_HANDOVER_MS_P99.put(x, pct.apply("handover", 99.0));
        LlamaColumns.PD_DECODE_QUEUE_MS_P99.put(x, pct.apply("decode_queue", 99.0));
        LlamaColumns.PD_RESTORE_MS_P99.put(x, pct.apply("restore", 99.0));
        LlamaColumns.PD_FIRST_DECODE_STEP_MS_P99.put(x, pct.apply("first_decode_step", 99.0));
        LlamaColumns.PD_NOTE.put(
                x,
                !pd
                        ? "colocated: no handover (handover_bytes 0, its times NaN); decode_prefill_tokens counts every prompt token the "
                                + "instances computed, since every instance decodes"
                        : "TTFT = prefill queue + prefill + handover + decode queue + restore (the client gets the prefill's first token "
                                + "when the decode instance has restored the KV); the first decode step gives the second token. "
                                + engine.pd.describe());
    }

    @Override
    public String describe() {
        return "live (wall clock): llama.cpp in-process, " + config.cluster().instances() + " instance(s) of "
                + target.threads() + " thread(s)";
    }

    @Override
    public boolean storePath() {
        return true;
    }

    @Override
    public void summary(CellSummary.Builder row, Figures extras) {
        RunConfig c = config;
        row.put(Columns.TIERS, c.tiers().label())
                .put(Columns.POLICY, c.policy().label())
                .put(Columns.TRANSPORT, c.transport())
                .put(Columns.PD, c.pd().label())
                .put(Columns.WRONG_HITS_USED, wrongHitsUsed())
                .put(Columns.WRITTEN_BACK_BYTES, totals.writtenBytes.sum())
                .put(Columns.REJECTED_BLOCKS, totals.rejectedBlocks())
                .put(Columns.MODEL, target.model().getFileName().toString())
                .put(Columns.HARDWARE, "cpu")
                .put(Columns.INSTANCES, (long) c.cluster().instances())
                .put(Columns.TP, 1L)
                .put(
                        Columns.EMULATED_PARTS,
                        "rdma-emu".equals(storePlan.transportName())
                                ? "NIC (rdma-emu"
                                        + (engine.pd != null && !engine.pd.viaStore() ? ", the PD handover's too" : "")
                                        + "); the engine is real: " + engineLabel()
                                : engineLabel())
                .put(Columns.PREFILL_GPU_MS_MEAN, Double.NaN);
    }

    @Override
    public void finish(Figures x, Map<String, String> d) {
        d.put(
                "target",
                String.format(
                        Locale.ROOT,
                        "llama.cpp: %s (sha256 %s), KV %s, %d B per token",
                        target.model(),
                        modelSha256,
                        layout.describe(),
                        layout.bytesPerToken()));
        d.put(
                "store",
                backend.name() + ": one object per block of " + ns.blockTokens() + " tokens ("
                        + KvBlockObject.HEADER_BYTES
                        + "-byte header with the block's key and CRC32C, then llama.cpp's K and V rows), "
                        + backend.copySemantics());
        d.put("engine", engineLabel());
    }
}
