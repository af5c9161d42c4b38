package dev.kvlab.harness.internal.realkv;

import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.internal.llama.LlamaBatch;
import dev.kvlab.harness.internal.llama.LlamaContext;
import dev.kvlab.harness.internal.llama.LlamaLibrary;
import dev.kvlab.harness.internal.llama.LlamaModel;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A real engine measured as a roofline ({@code kvlab calibrate --engine}): llama.cpp's prefill of a prefix (median of
 * three after a warm-up) and its decode step after it (median of the steps) on this machine, turned into a catalog
 * model (the GGUF's shape) and a "hardware" whose FLOP/s reproduce the measured prefill and whose bandwidth the
 * measured decode step, at efficiency 1: what {@code kvlab breakeven} needs to predict recompute vs fetch on this
 * engine. The roofline's prefill is compute-bound and its decode memory-bound here; both predictions are given
 * back so that a regime the roofline gets wrong is visible.
 *
 * @param model            the GGUF's shape
 * @param threads          threads of the measured context
 * @param prefixTokens     tokens prefilled
 * @param prefillSeconds   median prefill time
 * @param decodeSeconds    median decode step after the prefix
 * @param modelSpec        the catalog model
 * @param hardwareSpec     the calibrated "hardware"
 * @param predictedPrefill the roofline's prefill time with them (seconds)
 * @param predictedDecode  the roofline's decode step with them (seconds)
 */
public record EngineCalibration(GgufModelInfo model, int threads, int prefixTokens, double prefillSeconds, double decodeSeconds,
                                ModelSpec modelSpec, HardwareSpec hardwareSpec, double predictedPrefill, double predictedDecode) {

    /** Measures {@code model} with a context of {@code threads} threads. */
    public static EngineCalibration measure(LlamaLibrary lib, GgufModelInfo model, int threads, int prefixTokens, int decodeSteps) {
        check(prefixTokens, decodeSteps);
        try (LlamaModel m = LlamaModel.load(lib, model.path());
             LlamaContext ctx = m.newContext(new LlamaContext.Options(prefixTokens + decodeSteps + 16, Math.min(512, prefixTokens), 1, threads,
                     LlamaContext.FlashAttention.AUTO))) {
            return measure(ctx, model, threads, prefixTokens, decodeSteps);
        }
    }

    /**
     * Measures the engine on {@code ctx} (a context of {@code threads} threads on {@code model} with room for
     * {@code prefixTokens + decodeSteps} tokens): a real-engine cell calibrates its twin on its own first context
     * before it serves anything. Leaves the context cleared.
     */
    static EngineCalibration measure(LlamaContext ctx, GgufModelInfo model, int threads, int prefixTokens, int decodeSteps) {
        check(prefixTokens, decodeSteps);
        double[] prefill = new double[3];
        double[] steps = new double[decodeSteps];
        int[] toks = new int[prefixTokens];
        SplittableRandom r = new SplittableRandom(23);
        int vocab = ctx.model().vocabSize();
        for (int i = 0; i < toks.length; i++) toks[i] = PromptTokens.FIRST + r.nextInt(vocab - PromptTokens.FIRST);
        float[] logits = null;
        try {
            for (int run = -1; run < prefill.length; run++) {
                ctx.clear();
                long t0 = System.nanoTime();
                logits = ctx.prefill(0, toks, 0, toks.length, 0);
                if (run >= 0) prefill[run] = (System.nanoTime() - t0) / 1e9;
            }
            try (LlamaBatch b = ctx.newBatch()) {
                int tok = LlamaContext.argmax(logits);
                for (int i = 0; i < decodeSteps; i++) {
                    b.clear();
                    b.add(tok, prefixTokens + i, 0, true);
                    long t0 = System.nanoTime();
                    ctx.decode(b);
                    tok = LlamaContext.argmax(ctx.logits(0));
                    steps[i] = (System.nanoTime() - t0) / 1e9;
                }
            }
        } finally {
            ctx.clear();
        }
        return of(model, threads, prefixTokens, median(prefill), median(steps), decodeSteps);
    }

    private static void check(int prefixTokens, int decodeSteps) {
        if (prefixTokens < 16) throw new IllegalArgumentException("--prefix-tokens: at least 16, got " + prefixTokens);
        if (decodeSteps < 1) throw new IllegalArgumentException("--decode-tokens: at least 1, got " + decodeSteps);
    }

    /** The roofline that reproduces a prefill of {@code prefixTokens} in {@code tp} s and a decode step after it in {@code td} s. */
    static EngineCalibration of(GgufModelInfo model, int threads, int prefixTokens, double tp, double td, int decodeSteps) {
        ModelSpec ms = modelSpec(model);
        KvSizing kv = KvSizing.of(ms, Dtype.FP16, 1);
        Roofline unit = new Roofline(ms, hardware(model, threads, 1, 1, ""), kv);
        double flops = (unit.linearFlops(prefixTokens) + unit.attentionFlops(Roofline.causalPairs(prefixTokens, 0))) / tp;
        double bandwidth = (unit.weightBytes() + (prefixTokens + 1.0) * kv.bytesPerTokenAllRanks()) / td;
        String source = String.format(Locale.ROOT, "kvlab calibrate --engine %s on %s: llama.cpp prefill of %d tokens %.1f ms (median of 3), "
                        + "decode step %.2f ms (median of %d), %d thread(s)", model.path().getFileName(), host(), prefixTokens, tp * 1e3, td * 1e3,
                decodeSteps, threads);
        HardwareSpec hw = hardware(model, threads, flops, bandwidth, source);
        Roofline cal = new Roofline(ms, hw, kv);
        return new EngineCalibration(model, threads, prefixTokens, tp, td, ms, hw, cal.prefillSeconds(prefixTokens, 0),
                cal.decodeStepSeconds(1, prefixTokens));
    }

    /** The calibrated roofline with {@code kvDtype} KV (the engine's own; the calibration's figures assume its bytes per token). */
    public Roofline roofline(Dtype kvDtype) {
        return new Roofline(modelSpec, hardwareSpec, KvSizing.of(modelSpec, kvDtype, 1));
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static String host() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "this host";
        }
    }

    /** The catalog model of the GGUF's shape: {@code gguf-<sha256 prefix>}, weights at the file's dtype. */
    static ModelSpec modelSpec(GgufModelInfo g) {
        Dtype w = switch (g.fileType()) {
            case 0 -> Dtype.FP32;
            case 7 -> Dtype.FP8; // q8_0: about one byte per weight
            default -> Dtype.FP16;
        };
        String file = g.path().getFileName().toString().replaceAll("\\.gguf$", "");
        return new ModelSpec("gguf-" + g.sha256().substring(0, 12), g.name() == null || g.name().isBlank() ? file : g.name(), List.of(file),
                "GGUF header of " + g.path().getFileName() + " (sha256 " + g.sha256() + ")", g.layers(), g.hidden(), g.heads(), g.kvHeads(),
                g.keyLength(), g.valueLength() == g.keyLength() ? null : g.valueLength(), null, null, (double) g.parameters(), null, w,
                (int) Math.min(Integer.MAX_VALUE, Math.max(1, g.contextLength())));
    }

    private static HardwareSpec hardware(GgufModelInfo g, int threads, double flops, double bandwidth, String source) {
        long ram = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        return new HardwareSpec("cpu-llama-" + g.sha256().substring(0, 8) + "-" + threads + "t", "CPU (llama.cpp, " + threads + " thread(s)) calibrated",
                List.of(), source, flops, null, bandwidth, Math.max(1_000_000_000L, ram), bandwidth, 1.0, 1.0);
    }

    /** A catalog file ({@code --catalog FILE}) with the model and the calibrated hardware. */
    public String catalogYaml() {
        ModelSpec m = modelSpec;
        HardwareSpec h = hardwareSpec;
        StringBuilder sb = new StringBuilder();
        sb.append("# kvlab calibrate --engine: a real engine (llama.cpp on this CPU) as a roofline catalog entry.\n");
        sb.append("# ").append(h.source()).append("\n");
        sb.append(String.format(Locale.ROOT, "# the roofline with these figures: prefill %.1f ms (measured %.1f), decode step %.2f ms (measured %.2f)%n",
                predictedPrefill * 1e3, prefillSeconds * 1e3, predictedDecode * 1e3, decodeSeconds * 1e3));
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
        if (m.vHeadDim() != null) sb.append("    v_head_dim: ").append(m.vHeadDim()).append('\n');
        sb.append("    parameters: ").append((long) m.parameters()).append('\n');
        sb.append("    weight_dtype: ").append(m.weightDtype().name().toLowerCase(Locale.ROOT)).append('\n');
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
        return sb.toString();
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
