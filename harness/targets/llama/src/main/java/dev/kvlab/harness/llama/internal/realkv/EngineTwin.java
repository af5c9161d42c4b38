package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.catalog.AttentionCost;
import dev.kvlab.harness.api.catalog.Breakeven;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.config.SchedulerConfig;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.twin.TwinCalibration;
import dev.kvlab.harness.llama.internal.LlamaContext;
import dev.kvlab.harness.llama.internal.LlamaModel;
import dev.kvlab.harness.spi.AuditedStore;
import dev.kvlab.harness.spi.LinkProbe;
import dev.kvlab.harness.spi.LiveClock;
import dev.kvlab.harness.spi.TargetFramework;
import dev.kvlab.harness.spi.TwinPlan;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.workloads.api.WorkloadSpec;
import java.time.Duration;

/**
 * The sim twin of a real-engine cell, with the same machinery as a live cell's ({@link SimTwin}): the cell's engine
 * calibrated as a roofline on a context like its instances' before it serves ({@link EngineCalibration}: the GGUF's
 * shape and a "hardware" fitted to the engine's prefill and decode at two contexts, its attention kernels and its
 * loading of fetched KV), scheduled as the engine schedules (its sequences, tokens per pass, prompts in chunks), the
 * cell's store path
 * measured at its start and end by the live cells' link probe ({@link LiveStore#probe}, on the same backend, at the
 * model's KV block size), and the same cell run on the sim clock on them. It also gives what {@code kvlab breakeven}
 * predicts on that calibration and link: the prefix length from which fetching beats recomputing, and both times at
 * the workload's shared prefix.
 */
final class EngineTwin {

    /** Decode steps timed by the calibration. */
    static final int CALIBRATION_DECODE_STEPS = 8;

    /**
     * The engine keeps a prompt's full blocks chunk by chunk ({@code scheduler.cache_chunks}; measured on check 27's
     * shape at 6 req/s, local-only: the twin's local tier hit 0.823 of prompt tokens against the engine's 0.841 when its
     * blocks joined at the prompt's end, 0.843 against 0.841 chunk by chunk).
     */
    static final boolean CACHES_CHUNKS = true;

    private final RunConfig config;
    private final GgufModelInfo model;
    private final int threads;
    private EngineCalibration calibration;
    /** What {@link #calibrate} timed the engine for (null: it did not). */
    private SearchCalibrations.Key timedFor;

    private TwinPlan plan;
    private HardwareSpec hardware;
    private EngineInstance.Shape shape;
    private int mostRequest, blockTokens;
    private int passTokens;
    private int sequences;
    private Dtype kvDtype;
    private LinkProbe start, end;
    private String endError;
    /** PD: the handover's path as measured (direct), or null; whether handovers go through the store. */
    private LinkProbe handover;

    private boolean handoverViaStore;

    EngineTwin(RunConfig config, GgufModelInfo model, int threads) {
        this.config = config;
        this.model = model;
        this.threads = threads;
    }

    /**
     * The cell's instances as the twin needs them beyond the engine's speed ({@link #twinHardware}): what a token's
     * attention spans in a shared KV stream, and the KV an instance holds. Before {@link #calibrate} or {@link #calibrated}.
     */
    void shape(EngineInstance.Shape shape, int mostPrompt, int mostOutput, int blockTokens) {
        this.shape = shape;
        this.mostRequest = mostPrompt + mostOutput;
        this.blockTokens = blockTokens;
    }

    /**
     * Calibrates the engine on contexts of its own on {@code model}, made like the cell's ({@code cell}: its threads,
     * tokens per pass and flash attention) with room for the calibration, on a chunk of {@code tokens} and loads of
     * blocks of {@code blockTokens}, one per instance of the cell, all timed at once (each on its own thread, as the
     * cell's instances run: the CPU they share is in the timings), and plans the twin on it with {@code kvDtype} KV and
     * the engine's scheduling: {@code sequences} requests at once, at most {@code cell.nBatch()} tokens per pass,
     * prompts in chunks. A capacity probe ({@code capacityProbe}) takes instead the calibration its capacity search took
     * with the same arguments when there is one ({@link SearchCalibrations}). Returns the age in seconds of the one
     * taken, NaN when the engine was timed here.
     */
    double calibrate(
            LlamaModel model,
            LlamaContext.Options cell,
            int sequences,
            int instances,
            int tokens,
            int blockTokens,
            Dtype kvDtype,
            boolean capacityProbe) {
        SearchCalibrations.Key key =
                SearchCalibrations.Key.of(model, cell, threads, Math.max(1, instances), tokens, blockTokens);
        SearchCalibrations.Taken taken = capacityProbe ? SearchCalibrations.find(key) : null;
        if (taken != null) {
            calibrated(taken.calibration(), cell, sequences, kvDtype);
            return taken.ageSeconds(System.nanoTime());
        }
        int n = Math.max(EngineCalibration.MIN_CHUNK, Math.max(blockTokens, tokens));
        java.util.List<LlamaContext> ctxs = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < Math.max(1, instances); i++)
                ctxs.add(model.newContext(EngineCalibration.options(
                        this.model, n, CALIBRATION_DECODE_STEPS, cell.nBatch(), threads, cell.flashAttention())));
            calibration = EngineCalibration.measureAtOnce(
                    ctxs, this.model, threads, n, CALIBRATION_DECODE_STEPS, blockTokens);
        } finally {
            for (LlamaContext c : ctxs) c.close();
        }
        timedFor = key;
        calibrated(calibration, cell, sequences, kvDtype);
        return Double.NaN;
    }

    /** Keeps the calibration {@link #calibrate} timed for the search's cells to take ({@link #calibrate} of a capacity probe). */
    void keepForTheSearch() {
        SearchCalibrations.offer(timedFor, calibration);
    }

    /** The twin planned on a calibration measured before (a capacity probe on an engine kept from an earlier probe of its cell). */
    void calibrated(EngineCalibration measured, LlamaContext.Options cell, int sequences, Dtype kvDtype) {
        calibration = measured;
        passTokens = cell.nBatch();
        this.sequences = sequences;
        this.kvDtype = kvDtype;
        hardware = twinHardware(calibration, kvDtype);
        plan = TargetFramework.get()
                .twinPlan(
                        engineCached(engineScheduled(config, cell.nBatch(), sequences)),
                        calibration.modelSpec(),
                        hardware,
                        kvDtype);
    }

    /**
     * The calibrated "hardware" as the cell's instances run it. With a shared KV stream (a local tier: llama.cpp's unified
     * KV cache) every token's attention spans the stream's used cells, not its own context ({@code get_n_kv}: the last
     * used cell, padded to 256): at load, the local tier's kept blocks and every sequence's largest request, at most the
     * context's cells; the other sequences' cells at what the calibration measured a masked pair to cost ({@link
     * AttentionCost#maskedCost}: with flash attention on, a fraction of a computed pair). Its KV memory is the instance's: the local tier's blocks and every sequence's largest request, so
     * that the twin's local tier keeps what the engine's does, not what a machine's whole RAM would.
     */
    HardwareSpec twinHardware(EngineCalibration c, Dtype kvDtype) {
        HardwareSpec hw = c.hardwareSpec();
        if (shape == null) return hw;
        AttentionCost att = hw.attention();
        if (shape.unified() && att != null) {
            long used = (long) shape.localBlocks() * blockTokens + (long) shape.sequences() * mostRequest;
            att = att.withKvCells((int) Math.min(shape.cells(), (used + 255) / 256 * 256));
        }
        dev.kvlab.harness.api.catalog.ModelSpec m = c.modelSpec();
        double weights = m.weightBytes();
        long blocks = shape.localBlocks() + (long) shape.sequences() * ((mostRequest + blockTokens - 1) / blockTokens);
        double kvBytes = (blocks + 0.5) * KvSizing.of(m, kvDtype, 1).blockBytesPerRank(blockTokens);
        long hbm = (long) Math.ceil((weights + kvBytes) / config.scheduler().kvMemoryFraction());
        return new HardwareSpec(
                hw.id(),
                hw.name(),
                hw.aliases(),
                hw.source(),
                hw.bf16Flops(),
                hw.fp8Flops(),
                hw.hbmBandwidth(),
                hbm,
                hw.hostLinkBandwidth(),
                hw.prefillMfu(),
                hw.decodeBandwidthUtilization(),
                att,
                hw.kvLoad(),
                hw.outputRows());
    }

    /** The calibration (null: none). */
    EngineCalibration calibration() {
        return calibration;
    }

    /**
     * {@code c} with the engine's scheduling (what {@link EngineInstance} does): up to {@code sequences} requests at once,
     * each step every decoding sequence's token and then prompt chunks, at most {@code batchTokens} tokens, a prompt's
     * blocks kept as the engine keeps them ({@link #CACHES_CHUNKS}).
     */
    static RunConfig engineScheduled(RunConfig c, int batchTokens, int sequences) {
        return c.withScheduler(
                new SchedulerConfig(batchTokens, sequences, true, c.scheduler().kvMemoryFraction(), CACHES_CHUNKS));
    }

    /**
     * {@code c} with the engine's local tier as its prefix cache: at most the blocks the engine keeps
     * ({@code target.local_capacity}), a tier of its own beside the sequences' cells, not every free cell.
     */
    RunConfig engineCached(RunConfig c) {
        long tokens = cacheTokens();
        return tokens > 0 ? c.withLocal(c.local().withCacheTokens(tokens)) : c;
    }

    /** The tokens the engine's local tier keeps per instance (0: no local tier). */
    private long cacheTokens() {
        return shape == null ? 0 : (long) shape.localBlocks() * blockTokens;
    }

    /** The twin's roofline: the calibrated engine as the sim prices its steps. Only when {@link #enabled}. */
    Roofline roofline() {
        return plan.roofline();
    }

    /** Whether the cell has a twin (calibrated). */
    boolean enabled() {
        return plan != null;
    }

    /**
     * A disaggregated cell's handover path: {@code measured} (the direct path, {@link PdHandover#probe}), or through the
     * store ({@code viaStore}: a put then a get on the store's measured link).
     */
    void handover(LinkProbe measured, boolean viaStore) {
        this.handover = measured;
        this.handoverViaStore = viaStore;
    }

    /** Measures the store path before the cell serves (the loop not yet running). */
    void probeStart(LiveClock loop, AuditedStore backend) {
        if (!enabled()) return;
        try {
            start = probe(loop, backend);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while measuring the link", e);
        }
    }

    /** The same probe after the cell (best effort: the measured result is complete already). */
    void probeEnd(LiveClock loop, AuditedStore backend) {
        if (!enabled()) return;
        try {
            end = probe(loop, backend);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            endError = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private LinkProbe probe(LiveClock loop, AuditedStore backend) throws InterruptedException {
        return plan.probeLink(loop, backend);
    }

    /** The link the twin runs on: the start and end probes bracketed, or the start's alone. */
    private LinkProbe twinProbe() {
        return LinkProbe.twinOf(start, end);
    }

    /** The calibration, the link the cell measured at its start and the break-even predicted on both, into {@code x}. */
    void extras(Figures x, WorkloadSpec workload, int blockTokens) {
        if (!enabled()) {
            LlamaColumns.TWIN.put(x, "off (target.calibrate_tokens: 0)");
            return;
        }
        EngineCalibration c = calibration;
        LlamaColumns.ENGINE_CALIBRATION.put(x, c.hardwareSpec().source());
        Columns.ENGINE_CALIBRATED_PREFILL_TOKENS_PER_S.put(x, c.prefixTokens() / c.prefillSeconds());
        LlamaColumns.ENGINE_CALIBRATED_DECODE_MS.put(x, c.decodeSeconds() * 1e3);
        LlamaColumns.ENGINE_CALIBRATED_FLOPS.put(x, c.hardwareSpec().bf16Flops());
        LlamaColumns.ENGINE_CALIBRATED_BYTES_PER_S.put(x, c.hardwareSpec().hbmBandwidth());
        LlamaColumns.ENGINE_CALIBRATED_ATTENTION_EFFICIENCY.put(
                x, c.hardwareSpec().attention().efficiency());
        LlamaColumns.ENGINE_CALIBRATED_SMALL_PASS_ATTENTION_EFFICIENCY.put(
                x, c.hardwareSpec().attention().smallPassEfficiency());
        LlamaColumns.ENGINE_CALIBRATED_SMALL_PASS_TOKENS.put(
                x, c.hardwareSpec().attention().smallPassTokens());
        LlamaColumns.ENGINE_CALIBRATED_PREFILL_BEHIND_CONTEXT_MS.put(
                x, c.timings().prefill().behind() * 1e3);
        LlamaColumns.ENGINE_CALIBRATED_CONTEXT_TOKENS.put(
                x, c.timings().prefill().context());
        LlamaColumns.ENGINE_CALIBRATED_KV_LOAD_LATENCY_US.put(
                x, c.hardwareSpec().kvLoad().latencySeconds() * 1e6);
        LlamaColumns.ENGINE_CALIBRATED_KV_LOAD_BYTES_PER_S.put(
                x, c.hardwareSpec().kvLoad().bytesPerSecond());
        LlamaColumns.ENGINE_CALIBRATION_WORST_ERROR.put(x, c.worstError());
        if (!c.clips().isEmpty()) LlamaColumns.ENGINE_CALIBRATION_CLIPS.put(x, String.join("; ", c.clips()));
        start.extras(x);
        Breakeven be = breakeven(start, suffix(workload));
        Columns.BREAKEVEN_PREDICTED_TOKENS.put(x, be.breakevenTokens());
        int prefix = sharedPrefix(workload, blockTokens);
        if (prefix > 0) {
            Columns.SHARED_PREFIX_TOKENS.put(x, prefix);
            Columns.PREDICTED_RECOMPUTE_MS.put(x, be.recomputeSeconds(prefix) * 1e3);
            Columns.PREDICTED_FETCH_MS.put(x, be.fetchSeconds(prefix) * 1e3);
        }
    }

    /**
     * {@code kvlab breakeven} on the calibrated engine and the measured store path, for a request of the workload:
     * recompute is the roofline's prefill of the prefix and the suffix in the engine's passes, fetch the lookup and the
     * fetch's fixed cost plus the prefix's KV over the measured bandwidth, loading it into the engine, then the suffix's
     * prefill behind it.
     */
    private Breakeven breakeven(LinkProbe p, int suffixTokens) {
        Roofline roof = plan.roofline();
        LinkSpec link = new LinkSpec(
                1,
                p.bytesPerSecond() * 8,
                Duration.ofNanos(Math.max(1, p.lookupNanos() + Math.round(p.latencySeconds() * 1e9))));
        return new Breakeven(roof, link, suffixTokens, passTokens);
    }

    /** The prompt tokens after the shared prefix (0 for a workload without one). */
    static int suffix(WorkloadSpec w) {
        return switch (w) {
            case WorkloadSpec.SharedPrefix s -> s.suffixTokens();
            case WorkloadSpec.Zipf z -> z.suffixTokens();
            default -> 0;
        };
    }

    /** The prompt prefix the workload's requests share, in whole blocks (0 for a workload without one). */
    static int sharedPrefix(WorkloadSpec w, int blockTokens) {
        int p = switch (w) {
            case WorkloadSpec.SharedPrefix s -> s.prefixTokens();
            case WorkloadSpec.Zipf z -> z.prefixTokens();
            default -> 0;
        };
        return p / blockTokens * blockTokens;
    }

    /**
     * The calibration and the store path measured at the start as the api's {@link TwinCalibration}, for a twin run
     * without this cell (core's {@code TwinRun}): what a capacity search predicts with.
     */
    TwinCalibration twinCalibration(int instances) {
        if (!enabled()) throw new IllegalStateException("not calibrated");
        EngineCalibration c = calibration;
        dev.kvlab.harness.api.SummaryRow.Builder f = dev.kvlab.harness.api.SummaryRow.builder();
        f.put("engine_calibration", c.hardwareSpec().source());
        f.put("flops", c.hardwareSpec().bf16Flops());
        f.put("bytes_per_s", c.hardwareSpec().hbmBandwidth());
        f.put("attention_efficiency", c.hardwareSpec().attention().efficiency());
        f.put("small_pass_attention_efficiency", c.hardwareSpec().attention().smallPassEfficiency());
        f.put("small_pass_tokens", c.hardwareSpec().attention().smallPassTokens());
        f.put("kv_load_latency_us", c.hardwareSpec().kvLoad().latencySeconds() * 1e6);
        f.put("kv_load_bytes_per_s", c.hardwareSpec().kvLoad().bytesPerSecond());
        f.put("worst_error", c.worstError());
        for (dev.kvlab.harness.api.twin.FitCheck k : c.checks()) f.put("check: " + k.what(), k.figure());
        if (!c.clips().isEmpty()) f.put("clips", String.join("; ", c.clips()));
        double lat = Double.NaN, bw = Double.NaN;
        long lookup = 0;
        if (start != null) {
            lat = start.latencySeconds();
            bw = start.bytesPerSecond();
            lookup = start.lookupNanos();
            f.put("link_measured", start.label());
        }
        AttentionCost att = hardware.attention();
        if (att != null && att.kvCells() > 0) f.put("attention_kv_cells", att.kvCells());
        if (att != null && att.maskedCost() != null) {
            f.put("attention_masked_cost_small_pass", att.maskedCost().smallPass());
            f.put("attention_masked_cost_pass", att.maskedCost().pass());
        }
        if (att != null && att.tileRows() > 0) f.put("attention_tile_rows", att.tileRows());
        if (hardware.outputRows() != null) {
            f.put("output_second_row_ms", hardware.outputRows().secondRowSeconds() * 1e3);
            f.put("output_row_ms", hardware.outputRows().rowSeconds() * 1e3);
        }
        f.put("kv_memory_bytes", hardware.hbmCapacity());
        if (cacheTokens() > 0) f.put("local_cache_tokens", cacheTokens());
        return new TwinCalibration(
                "llama.cpp in-process, " + threads + " thread(s) per instance, "
                        + model.path().getFileName(),
                c.modelSpec(),
                hardware,
                kvDtype,
                passTokens,
                sequences,
                instances,
                lat,
                bw,
                lookup,
                f.build(),
                null,
                cacheTokens(),
                CACHES_CHUNKS, // as engineScheduled gives a live cell's twin
                handoffPath(start));
    }

    /** {@code live} with its twin's figures (and the end probe's) attached; unchanged without a twin. */
    CellResult attach(CellResult live) {
        if (!enabled()) return live;
        LinkProbe p = twinProbe();
        var link = p.model(plan.transportName());
        Figures more = LinkProbe.twinLinkExtras(end, endError, p);
        LlamaColumns.TWIN_MODEL.put(
                more, plan.model().id() + " on " + plan.hardware().id() + " (the engine calibrated as a roofline)");
        java.util.List<dev.kvlab.transport.api.TransportModel> handoff = handoffPath(p);
        if (!handoff.isEmpty()) LlamaColumns.TWIN_HANDOVER_PATH.put(more, handoverLabel(p));
        if (handover != null) LlamaColumns.PD_HANDOVER_LINK_BYTES_PER_S.put(more, handover.bytesPerSecond());
        return plan.withTwin(live, link, handoff, p.lookupNanos(), more);
    }

    /**
     * The legs of a handover for the twin: the direct path as measured; through the store, a put (its start and end
     * round trips to the master, then the bytes) on the store's link {@code p} out, then a get (a replica list, then the
     * bytes) on it in: each direction a link of its own, as the store's nodes are other hosts; empty when the cell
     * hands nothing over.
     */
    private java.util.List<dev.kvlab.transport.api.TransportModel> handoffPath(LinkProbe p) {
        if (handover != null) return java.util.List.of(handover.model(plan.transportName() + "-handover"));
        if (!handoverViaStore || p == null) return java.util.List.of();
        return java.util.List.of(leg(p, "put", 2), leg(p, "get", 1));
    }

    private dev.kvlab.transport.api.TransportModel leg(LinkProbe p, String what, int lookups) {
        return new dev.kvlab.transport.api.LinearTransportModel(
                plan.transportName() + "-measured-" + what,
                false,
                p.latencySeconds() + lookups * p.lookupNanos() / 1e9,
                0,
                p.bytesPerSecond(),
                p.bytesPerSecond());
    }

    private String handoverLabel(LinkProbe p) {
        return handover != null ? "direct, measured: " + handover.label() : "store: a put then a get on " + p.label();
    }
}
