package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.api.catalog.AttentionCost;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvLoadCost;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.twin.FitCheck;
import dev.kvlab.harness.llama.internal.LlamaContext;
import dev.kvlab.harness.llama.internal.LlamaLibrary;
import dev.kvlab.harness.llama.internal.LlamaModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A real engine measured as a roofline ({@code kvlab calibrate --engine}): llama.cpp's prefill of a chunk into an empty
 * context and behind a long one, its decode step after a short and a long context, passes of a few lengths behind the
 * long context (llama.cpp's CPU attention runs short passes on another, slower kernel), and loading fetched KV into it
 * (assembling blocks into its state format and restoring them), each a median on this machine ({@link EngineTimings}),
 * turned into a catalog model (the GGUF's shape) and a "hardware" fitted to them ({@link EngineFit}): FLOP/s and
 * bandwidth at efficiency 1, attention's own efficiency for long and short passes ({@code attention}) and the cost of
 * loading fetched KV ({@code kv_load}): what {@code kvlab breakeven} and a cell's sim twin need to predict recompute vs
 * fetch on this engine. What the fitted roofline predicts for every timing is given back ({@code checks}), so that a
 * regime it gets wrong is visible.
 *
 * @param model        the GGUF's shape
 * @param threads      threads of the measured context
 * @param timings      what was timed
 * @param modelSpec    the catalog model
 * @param hardwareSpec the calibrated "hardware"
 * @param clips        figures the timings could not give, in words (empty: none)
 * @param checks       every timing next to the fitted roofline's prediction of it
 */
public record EngineCalibration(
        GgufModelInfo model,
        int threads,
        EngineTimings timings,
        ModelSpec modelSpec,
        HardwareSpec hardwareSpec,
        List<String> clips,
        List<FitCheck> checks) {

    /** The shortest chunk a calibration times (tokens). */
    public static final int MIN_CHUNK = 16;

    /** The long context's length for a chunk of {@code chunkTokens}: four chunks. */
    public static final int CONTEXT_CHUNKS = 4;

    /** The chunk timed (tokens). */
    public int prefixTokens() {
        return timings.prefill().tokens();
    }

    /** The chunk's prefill into an empty context (median seconds). */
    public double prefillSeconds() {
        return timings.prefill().empty();
    }

    /** A decode step after the short context (median seconds). */
    public double decodeSeconds() {
        return timings.decode().atShort();
    }

    /** The largest |error| of the fitted roofline over its checks. */
    public double worstError() {
        double w = 0;
        for (FitCheck c : checks) w = Math.max(w, Math.abs(c.error()));
        return w;
    }

    /**
     * Measures {@code model} with a context of {@code threads} threads: a chunk of {@code prefixTokens}, a long context
     * of {@link #CONTEXT_CHUNKS} chunks (less where the model's context is shorter), {@code decodeSteps} steps, and
     * loads of fetched blocks of {@code blockTokens}.
     */
    public static EngineCalibration measure(
            LlamaLibrary lib, GgufModelInfo model, int threads, int prefixTokens, int decodeSteps, int blockTokens) {
        check(prefixTokens, decodeSteps);
        if (blockTokens < 1 || blockTokens > prefixTokens)
            throw new IllegalArgumentException("--block-tokens: in [1, --prefix-tokens], got " + blockTokens);
        try (LlamaModel m = LlamaModel.load(lib, model.path());
                LlamaContext ctx = m.newContext(options(
                        model,
                        prefixTokens,
                        decodeSteps,
                        Math.min(512, prefixTokens),
                        threads,
                        LlamaContext.FlashAttention.AUTO))) {
            return measure(ctx, model, threads, prefixTokens, decodeSteps, blockTokens);
        }
    }

    /**
     * The options of a context to calibrate on: room for the long context, the chunk and the decode steps (and, unless
     * flash attention is off, for another sequence's long context: {@link EngineTimings.Masked}), two sequences (the
     * restore's and the request's), unified KV (as a cell's instances run), {@code batchTokens} per pass.
     */
    static LlamaContext.Options options(
            GgufModelInfo model,
            int chunkTokens,
            int decodeSteps,
            int batchTokens,
            int threads,
            LlamaContext.FlashAttention flashAttention) {
        int context = contextTokens(model, chunkTokens, decodeSteps);
        int masked =
                flashAttention == LlamaContext.FlashAttention.DISABLED ? 0 : context; // EngineProbe's masked timings
        int cells = (context + masked + chunkTokens + decodeSteps + 16 + 255) / 256 * 256;
        return new LlamaContext.Options(cells, batchTokens, 2, threads, flashAttention, true);
    }

    /**
     * The largest chunk a calibration of {@code model} can time as it says (a chunk into an empty context and behind a
     * context of at least one chunk, then {@code decodeSteps} steps, within the model's context): 0 when none fits.
     */
    public static int largestChunk(GgufModelInfo model, int decodeSteps) {
        long room = model.contextLength() - (long) decodeSteps - 16;
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, room / 2));
    }

    /** The long context: {@link #CONTEXT_CHUNKS} chunks, less where the model's context is shorter (at least one chunk). */
    static int contextTokens(GgufModelInfo model, int chunkTokens, int decodeSteps) {
        long room = Math.max(1, model.contextLength()) - chunkTokens - decodeSteps - 16;
        return (int) Math.max(chunkTokens, Math.min((long) CONTEXT_CHUNKS * chunkTokens, room));
    }

    /**
     * Measures the engine on {@code ctx} (a context made with {@link #options}): a real-engine cell calibrates its twin
     * on such a context, with its instances' threads, pass size and flash attention, before it serves anything. Leaves
     * the context cleared.
     */
    static EngineCalibration measure(
            LlamaContext ctx, GgufModelInfo model, int threads, int prefixTokens, int decodeSteps, int blockTokens) {
        check(prefixTokens, decodeSteps);
        EngineTimings t;
        try {
            t = new EngineProbe(
                            ctx,
                            prefixTokens,
                            contextTokens(model, prefixTokens, decodeSteps),
                            decodeSteps,
                            blockTokens)
                    .run();
        } finally {
            ctx.clear();
        }
        return of(model, threads, t);
    }

    /**
     * Measures the engine on every context of {@code ctxs} at once (each made with {@link #options}), each on its own
     * thread, as a cell's instances run: the timings are the mean over the contexts of each one's medians, so the CPU the
     * instances share (threads against cores, and whatever else runs on the machine then) is in them. One context: as
     * {@link #measure(LlamaContext, GgufModelInfo, int, int, int, int)}. Leaves the contexts cleared.
     */
    static EngineCalibration measureAtOnce(
            List<LlamaContext> ctxs,
            GgufModelInfo model,
            int threads,
            int prefixTokens,
            int decodeSteps,
            int blockTokens) {
        if (ctxs.size() == 1) return measure(ctxs.getFirst(), model, threads, prefixTokens, decodeSteps, blockTokens);
        check(prefixTokens, decodeSteps);
        int context = contextTokens(model, prefixTokens, decodeSteps);
        List<java.util.concurrent.CompletableFuture<EngineTimings>> runs = new ArrayList<>();
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        for (LlamaContext ctx : ctxs) {
            java.util.concurrent.CompletableFuture<EngineTimings> f = new java.util.concurrent.CompletableFuture<>();
            Thread.ofPlatform().name("kvlab-calibrate").start(() -> {
                try {
                    go.await();
                    f.complete(new EngineProbe(ctx, prefixTokens, context, decodeSteps, blockTokens).run());
                } catch (Throwable e) {
                    f.completeExceptionally(e);
                } finally {
                    ctx.clear();
                }
            });
            runs.add(f);
        }
        go.countDown();
        List<EngineTimings> ts = new ArrayList<>();
        for (var f : runs) {
            try {
                ts.add(f.get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while calibrating", e);
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) throw r;
                throw new IllegalStateException("calibrating: " + e.getCause(), e.getCause());
            }
        }
        return of(model, threads, EngineTimings.mean(ts));
    }

    private static void check(int prefixTokens, int decodeSteps) {
        if (prefixTokens < MIN_CHUNK)
            throw new IllegalArgumentException("--prefix-tokens: at least " + MIN_CHUNK + ", got " + prefixTokens);
        if (decodeSteps < 1) throw new IllegalArgumentException("--decode-tokens: at least 1, got " + decodeSteps);
    }

    /**
     * The roofline fitted to {@code t} ({@link EngineFit}), with its predictions of every timing: of the two fits (a
     * pass the larger of its compute and its memory time, or their sum), the one whose worst prediction of the timings
     * is nearer.
     */
    static EngineCalibration of(GgufModelInfo model, int threads, EngineTimings t) {
        ModelSpec ms = ModelSpec.ofGguf(model);
        KvSizing kv = KvSizing.of(ms, Dtype.FP16, 1);
        Roofline unit = new Roofline(ms, hardware(model, threads, 1, 1, "", null, null), kv);
        EngineTimings.Prefill p = t.prefill();
        EngineTimings.Decode d = t.decode();
        String source = String.format(
                Locale.ROOT,
                "kvlab calibrate --engine %s on %s: llama.cpp, %d thread(s): prefill of %d tokens %.1f ms into an "
                        + "empty context, %.1f ms behind %d tokens; decode step %.2f ms after %.0f tokens, %.2f ms after %.0f; loading fetched KV "
                        + "%.2f ms for %d tokens, %.2f ms for %d (medians)",
                model.path().getFileName(),
                host(),
                threads,
                p.tokens(),
                p.empty() * 1e3,
                p.behind() * 1e3,
                p.context(),
                d.atShort() * 1e3,
                d.shortContext(),
                d.atLong() * 1e3,
                d.longContext(),
                t.load().small() * 1e3,
                t.load().smallTokens(),
                t.load().large() * 1e3,
                t.load().largeTokens());
        AttentionCost.MaskedCost masked = t.masked() == null ? null : t.masked().cost(p, d);
        List<String> maskedClips = t.masked() == null ? List.of() : t.masked().clips(p, d);
        EngineCalibration best = null;
        for (EngineFit fit : new EngineFit[] {EngineFit.of(t, unit), EngineFit.summed(t, unit)}) {
            if (fit == null) continue;
            AttentionCost att = fit.attention();
            if (masked != null && att != null)
                att = att.withMaskedCost(masked).withTileRows(t.masked().tileRows(t.passes()));
            HardwareSpec hw = hardware(model, threads, fit.flops(), fit.bandwidth(), source, att, fit.kvLoad())
                    .withOutputRows(t.outputs() == null ? null : t.outputs().cost());
            List<String> clips = new ArrayList<>(fit.clips());
            clips.addAll(maskedClips);
            EngineCalibration c = new EngineCalibration(
                    model, threads, t, ms, hw, List.copyOf(clips), checks(t, new Roofline(ms, hw, kv)));
            if (best == null || c.worstError() < best.worstError()) best = c;
        }
        return best;
    }

    /** A pass of {@code rows} rows behind the short context with every row's logits, timed {@code measured}, beside {@code cal}'s price. */
    private static FitCheck everyRowsLogits(int rows, double measured, Roofline cal) {
        return new FitCheck(
                "pass of " + rows + " after " + EngineProbe.SHORT_CONTEXT + ", every row's logits",
                measured,
                cal.prefillSeconds(rows, EngineProbe.SHORT_CONTEXT) + cal.outputRowsSeconds(rows));
    }

    /** Every timing of {@code t} beside {@code cal}'s prediction of it. */
    private static List<FitCheck> checks(EngineTimings t, Roofline cal) {
        EngineTimings.Prefill p = t.prefill();
        EngineTimings.Decode d = t.decode();
        List<FitCheck> checks = new ArrayList<>();
        checks.add(new FitCheck(
                "prefill " + p.tokens() + " into an empty context", p.empty(), cal.prefillSeconds(p.tokens(), 0)));
        checks.add(new FitCheck(
                "prefill " + p.tokens() + " behind " + p.context(),
                p.behind(),
                cal.prefillSeconds(p.tokens(), p.context())));
        checks.add(new FitCheck(
                String.format(Locale.ROOT, "decode step after %.0f", d.shortContext()),
                d.atShort(),
                cal.decodeStepSeconds(1, Math.round(d.shortContext()))));
        checks.add(new FitCheck(
                String.format(Locale.ROOT, "decode step after %.0f", d.longContext()),
                d.atLong(),
                cal.decodeStepSeconds(1, Math.round(d.longContext()))));
        for (EngineTimings.Pass q : t.passes()) {
            checks.add(new FitCheck(
                    "pass of " + q.tokens() + " into an empty context", q.empty(), cal.prefillSeconds(q.tokens(), 0)));
            checks.add(new FitCheck(
                    "pass of " + q.tokens() + " behind " + p.context(),
                    q.behind(),
                    cal.prefillSeconds(q.tokens(), p.context())));
        }
        EngineTimings.Masked m = t.masked();
        if (m != null && cal.hardware().attention() != null) {
            int used = (int) Math.round(d.longContext()) + m.cells();
            HardwareSpec hw = cal.hardware();
            Roofline shared = new Roofline(
                    cal.model(), hw.withAttention(hw.attention().withKvCells((used + 255) / 256 * 256)), cal.kv());
            checks.add(new FitCheck(
                    String.format(
                            Locale.ROOT, "decode step after %.0f beside %d masked cells", d.longContext(), m.cells()),
                    m.decode(),
                    shared.passSeconds(1, d.longContext() + 1, d.longContext(), 1, used)));
            checks.add(new FitCheck(
                    "prefill " + p.tokens() + " behind " + p.context() + " beside " + m.cells() + " masked cells",
                    m.chunk(),
                    shared.passSeconds(
                            p.tokens(),
                            Roofline.causalPairs(p.tokens(), p.context()),
                            p.context(),
                            p.tokens(),
                            p.context() + p.tokens() + m.cells())));
        }
        if (m != null)
            checks.add(new FitCheck(
                    "pass of " + (EngineProbe.FA_TILE_ROWS + 1) + " behind " + p.context(),
                    m.pastTile(),
                    cal.prefillSeconds(EngineProbe.FA_TILE_ROWS + 1, p.context())));
        EngineTimings.Outputs o = t.outputs();
        if (o != null) {
            checks.add(everyRowsLogits(o.fewRows(), o.fewAll(), cal));
            checks.add(everyRowsLogits(o.manyRows(), o.manyAll(), cal));
        }
        checks.add(new FitCheck(
                "loading " + t.load().smallTokens() + " fetched tokens",
                t.load().small(),
                cal.kvLoadSeconds(t.load().smallTokens())));
        checks.add(new FitCheck(
                "loading " + t.load().largeTokens() + " fetched tokens",
                t.load().large(),
                cal.kvLoadSeconds(t.load().largeTokens())));
        if (t.load().largeAssembly() > 0)
            checks.add(new FitCheck(
                    "of it, assembling them (off the engine thread)",
                    t.load().largeAssembly(),
                    cal.kvAssemblySeconds(t.load().largeTokens())));
        return List.copyOf(checks);
    }

    /**
     * The calibration as {@code kvlab calibrate --engine} prints it: the measured prefill and decode, the fitted roofline,
     * then one line per check and per clip.
     */
    public String text() {
        StringBuilder o = new StringBuilder();
        o.append(String.format(
                Locale.ROOT,
                "%s: prefill %d tokens in %.1f ms (%.0f tokens/s), decode %.2f ms/token, %d thread(s) (real engine on CPU)%n",
                model.path().getFileName(),
                prefixTokens(),
                prefillSeconds() * 1e3,
                prefixTokens() / prefillSeconds(),
                decodeSeconds() * 1e3,
                threads));
        HardwareSpec hw = hardwareSpec;
        o.append(String.format(
                Locale.ROOT,
                "as a roofline: %.3g FLOP/s, %.3g B/s (efficiency 1); attention at %.3g of the compute rate in passes of %d "
                        + "tokens or more, %.3g in shorter ones; %s; loading fetched KV %.0f us + %.3g B/s%n",
                hw.bf16Flops(),
                hw.hbmBandwidth(),
                hw.attention().efficiency(),
                hw.attention().smallPassTokens(),
                hw.attention().smallPassEfficiency(),
                hw.attention().sumComputeMemory()
                        ? "a pass costs its compute plus its memory time"
                        : "a pass costs the larger of its compute and memory time",
                hw.kvLoad().latencySeconds() * 1e6,
                hw.kvLoad().bytesPerSecond()));
        if (!hw.attention().passes().isEmpty()) {
            o.append("attention's efficiency by pass size (tokens: efficiency):");
            for (AttentionCost.PassEfficiency q : hw.attention().passes())
                o.append(String.format(Locale.ROOT, " %d: %.3g", q.tokens(), q.efficiency()));
            o.append(System.lineSeparator());
        }
        for (FitCheck k : checks)
            o.append(String.format(
                    Locale.ROOT,
                    "  %-40s measured %9.3f ms, the roofline %9.3f ms (%+.0f%%)%n",
                    k.what(),
                    k.measured() * 1e3,
                    k.predicted() * 1e3,
                    k.error() * 100));
        for (String clip : clips) o.append("  fit: ").append(clip).append(System.lineSeparator());
        return o.toString();
    }

    /** The calibrated roofline with {@code kvDtype} KV (the engine's own; the calibration's figures assume its bytes per token). */
    public Roofline roofline(Dtype kvDtype) {
        return new Roofline(modelSpec, hardwareSpec, KvSizing.of(modelSpec, kvDtype, 1));
    }

    private static String host() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "this host";
        }
    }

    private static HardwareSpec hardware(
            GgufModelInfo g,
            int threads,
            double flops,
            double bandwidth,
            String source,
            AttentionCost attention,
            KvLoadCost kvLoad) {
        long ram =
                dev.kvlab.harness.api.MachineMemory.now().totalBytes(); // this machine's physical memory (0: unknown)
        return new HardwareSpec(
                "cpu-llama-" + g.sha256().substring(0, 8) + "-" + threads + "t",
                "CPU (llama.cpp, " + threads + " thread(s)) calibrated",
                List.of(),
                source,
                flops,
                null,
                bandwidth,
                Math.max(1_000_000_000L, ram),
                bandwidth,
                1.0,
                1.0,
                attention,
                kvLoad);
    }

    /** A catalog file ({@code --catalog FILE}) with the model and the calibrated hardware. */
    public String catalogYaml() {
        ModelSpec m = modelSpec;
        HardwareSpec h = hardwareSpec;
        StringBuilder sb = new StringBuilder();
        sb.append("# kvlab calibrate --engine: a real engine (llama.cpp on this CPU) as a roofline catalog entry.\n");
        sb.append("# ").append(h.source()).append("\n");
        sb.append("# the fitted roofline against what was timed (ms):\n");
        for (FitCheck c : checks)
            sb.append(String.format(
                    Locale.ROOT,
                    "#   %-40s measured %9.3f  predicted %9.3f  (%+.0f%%)%n",
                    c.what(),
                    c.measured() * 1e3,
                    c.predicted() * 1e3,
                    c.error() * 100));
        for (String c : clips) sb.append("# fit: ").append(c).append('\n');
        sb.append("models:\n");
        sb.append("  - id: ").append(m.id()).append('\n');
        sb.append("    name: ").append(quote(m.name())).append('\n');
        sb.append("    aliases: [").append(quote(m.aliases().getFirst())).append("]\n");
        sb.append("    source: ").append(quote(m.source())).append('\n');
        sb.append("    layers: ").append(m.layers()).append('\n');
        sb.append("    hidden_size: ").append(m.hiddenSize()).append('\n');
        sb.append("    attention_heads: ").append(m.attentionHeads()).append('\n');
        sb.append("    kv_heads: ").append(m.kvHeads()).append('\n');
        sb.append("    head_dim: ").append(m.headDim()).append('\n');
        if (m.vHeadDim() != null)
            sb.append("    v_head_dim: ").append(m.vHeadDim()).append('\n');
        sb.append("    parameters: ").append((long) m.parameters()).append('\n');
        sb.append("    weight_dtype: ")
                .append(m.weightDtype().name().toLowerCase(Locale.ROOT))
                .append('\n');
        sb.append("    max_context: ").append(m.maxContext()).append('\n');
        sb.append("hardware:\n");
        sb.append("  - id: ").append(h.id()).append('\n');
        sb.append("    name: ").append(quote(h.name())).append('\n');
        sb.append("    source: ").append(quote(h.source())).append('\n');
        sb.append(String.format(Locale.ROOT, "    bf16_flops: %.6e%n", h.bf16Flops()));
        sb.append(String.format(Locale.ROOT, "    hbm_bandwidth: %.6e%n", h.hbmBandwidth()));
        sb.append("    hbm_capacity: ").append(h.hbmCapacity() / 1_000_000_000L).append("GB\n");
        sb.append(String.format(Locale.ROOT, "    host_link_bandwidth: %.6e%n", h.hostLinkBandwidth()));
        sb.append("    prefill_mfu: 1.0\n");
        sb.append("    decode_bandwidth_utilization: 1.0\n");
        AttentionCost a = h.attention();
        sb.append(String.format(
                Locale.ROOT,
                "    attention: {efficiency: %.6e, small_pass_efficiency: %.6e, small_pass_tokens: %d%s%s%s%s}%n",
                a.efficiency(),
                a.smallPassEfficiency(),
                a.smallPassTokens(),
                a.sumComputeMemory() ? ", sum_compute_memory: true" : "",
                a.maskedCost() == null
                        ? ""
                        : String.format(
                                Locale.ROOT,
                                ", masked_cost: {small_pass: %.6e, pass: %.6e}",
                                a.maskedCost().smallPass(),
                                a.maskedCost().pass()),
                a.tileRows() > 0 ? ", tile_rows: " + a.tileRows() : "",
                passesYaml(a)));
        if (h.outputRows() != null)
            sb.append(String.format(
                    Locale.ROOT,
                    "    output_rows: {second_row_seconds: %.6e, row_seconds: %.6e}%n",
                    h.outputRows().secondRowSeconds(),
                    h.outputRows().rowSeconds()));
        KvLoadCost asm = h.kvLoad().assembly();
        sb.append(String.format(
                Locale.ROOT,
                "    kv_load: {latency_seconds: %.6e, bytes_per_second: %.6e%s}%n",
                h.kvLoad().latencySeconds(),
                h.kvLoad().bytesPerSecond(),
                asm == null
                        ? ""
                        : String.format(
                                Locale.ROOT,
                                ", assembly: {latency_seconds: %.6e, bytes_per_second: %.6e}",
                                asm.latencySeconds(),
                                asm.bytesPerSecond())));
        return sb.toString();
    }

    /** {@code , passes: [{tokens: N, efficiency: E}, ...]}, or nothing without a table by pass size. */
    private static String passesYaml(AttentionCost a) {
        if (a.passes().isEmpty()) return "";
        StringBuilder sb = new StringBuilder(", passes: [");
        for (AttentionCost.PassEfficiency q : a.passes()) {
            if (sb.charAt(sb.length() - 1) != '[') sb.append(", ");
            sb.append(String.format(Locale.ROOT, "{tokens: %d, efficiency: %.6e}", q.tokens(), q.efficiency()));
        }
        return sb.append(']').toString();
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
