package dev.kvlab.harness.openai.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.catalog.AttentionCost;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvLoadCost;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.twin.EndpointCalibrationPlan;
import dev.kvlab.harness.api.twin.FitCheck;
import dev.kvlab.harness.api.twin.TwinCalibration;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The twin of any OpenAI-compatible engine, fitted from its own answers ({@code kvlab calibrate --endpoint}, and before
 * an {@code openai} cell's capacity search): prompts of two lengths into a cold cache, a short suffix behind a cached
 * prefix, and decode gaps after a short and a long prompt, each timed by the engine where it reports its prompt and
 * decode times (llama.cpp's {@code timings.prompt_ms} / {@code predicted_per_token_ms}; vLLM and SGLang report none in
 * their responses) and by the client otherwise (a one-token completion's time for the prompt; the difference of an
 * N-token and a one-token completion over N − 1 for a decode step). Fitted as {@code kvlab calibrate --engine} fits
 * llama.cpp in-process: the compute rate and long passes' attention efficiency from the two cold prompts, short passes'
 * attention from the suffix behind the prefix, the bandwidth from the decode step after the short prompt. The model's
 * shape comes from its GGUF (given, or the file llama-server names in {@code /props} when it is on this machine); the
 * engine's cache is its own (no fetched KV to load).
 *
 * @param twin     the fitted twin
 * @param checks   every timing beside the fitted roofline's prediction of it (seconds)
 * @param source   how each figure was timed (engine or client)
 */
public record EndpointCalibration(TwinCalibration twin, List<FitCheck> checks, String source) {

    /** One answer timed: the prompt's seconds and a decode step's seconds, and whether the engine timed them. */
    private record Timed(double prompt, double perToken, int promptTokensComputed, boolean engineTimed) {}

    /**
     * Calibrates the engine at {@code base}: {@code model} the served model's name, {@code gguf} its file (null: the one
     * the server names, where it can be read), {@code plan} what to time, {@code instances} the cell's endpoints.
     */
    public static EndpointCalibration measure(
            EngineClient c, URI base, String model, Path gguf, EndpointCalibrationPlan plan, int instances) {
        EngineKind kind = EngineKind.of(c, base);
        GgufModelInfo info = shape(c, base, gguf);
        WordCheck.Result words = WordCheck.run(c, base, model);
        PromptText text = new PromptText(words.words(), words.specialTokens());
        int slots = Math.max(1, c.slots(base).size());
        long seed = System.nanoTime();
        List<Double> shortCold = new ArrayList<>(),
                longCold = new ArrayList<>(),
                behind = new ArrayList<>(),
                decShort = new ArrayList<>(),
                decLong = new ArrayList<>();
        int engineTimed = 0, all = 0, behindComputed = -1;
        for (int r = 0; r < plan.repeats(); r++) {
            Timed a = time(
                    c,
                    base,
                    model,
                    text.probe(seed + 10L * r, plan.shortTokens()),
                    text.probe(seed + 10L * r + 5, plan.shortTokens()),
                    plan.decodeTokens());
            Timed b = time(
                    c,
                    base,
                    model,
                    text.probe(seed + 10L * r + 1, plan.longTokens()),
                    text.probe(seed + 10L * r + 6, plan.longTokens()),
                    plan.decodeTokens());
            String prefix = text.probe(seed + 10L * r + 2, plan.longTokens());
            time(c, base, model, prefix, null, 1); // caches the prefix
            Timed s = time(
                    c,
                    base,
                    model,
                    prefix + text.probe(seed + 10L * r + 3, plan.suffixTokens() + text.specialTokens()),
                    null,
                    1);
            shortCold.add(a.prompt());
            longCold.add(b.prompt());
            behind.add(s.prompt());
            decShort.add(a.perToken());
            decLong.add(b.perToken());
            behindComputed = s.promptTokensComputed();
            for (Timed t : List.of(a, b, s)) {
                all++;
                if (t.engineTimed()) engineTimed++;
            }
        }
        double t1 = median(shortCold),
                t2 = median(longCold),
                ts = median(behind),
                d1 = median(decShort),
                d2 = median(decLong);
        ModelSpec ms = ModelSpec.ofGguf(info);
        KvSizing kv = KvSizing.of(ms, Dtype.FP16, 1);
        Roofline unit = new Roofline(ms, hardware(ms, 1, 1, null, ""), kv);
        int l1 = plan.shortTokens(), l2 = plan.longTokens(), sfx = plan.suffixTokens();
        Fit fit0 = fit(unit, BATCH_TOKENS, l1, l2, sfx, t1, t2, ts, d1, d2, kv.bytesPerTokenAllRanks());
        double x = fit0.x();
        List<String> clips = fit0.clips();
        AttentionCost att = fit0.attention();
        double bandwidth = fit0.bandwidth();
        String how = engineTimed == all
                ? "the engine's own timings (" + kind.label + ")"
                : engineTimed == 0
                        ? "client timing (the engine reports none)"
                        : engineTimed + " of " + all + " answers by the engine's timings, the rest by the client";
        String src = String.format(
                Locale.ROOT,
                "kvlab calibrate --endpoint %s (%s, %s): cold prompts of %d and %d tokens %.1f / %.1f ms, %d tokens behind "
                        + "%d cached %.1f ms, decode %.2f ms/token after %d, %.2f after %d (medians of %d; %s)",
                base,
                kind.label,
                info.path().getFileName(),
                l1,
                l2,
                t1 * 1e3,
                t2 * 1e3,
                sfx,
                l2,
                ts * 1e3,
                d1 * 1e3,
                l1,
                d2 * 1e3,
                l2,
                plan.repeats(),
                how);
        if (att.span() > 0)
            src += String.format(Locale.ROOT, "; attention's cost per pair x (1 + pass tokens / %.1f)", att.span());
        if (att.sumComputeMemory())
            src += "; a decode step's compute and memory summed (the engine does not overlap them)";
        HardwareSpec hw = hardware(ms, 1 / x, bandwidth, att, src);
        Roofline fit = new Roofline(ms, hw, kv);
        List<FitCheck> checks = new ArrayList<>();
        checks.add(new FitCheck("cold prompt of " + l1, t1, fit.prefillSeconds(l1, 0)));
        checks.add(new FitCheck("cold prompt of " + l2, t2, fit.prefillSeconds(l2, 0)));
        checks.add(new FitCheck(sfx + " tokens behind " + l2 + " cached", ts, fit.prefillSeconds(sfx, l2)));
        checks.add(new FitCheck("decode step after " + l1, d1, fit.decodeStepSeconds(1, l1)));
        checks.add(new FitCheck("decode step after " + l2, d2, fit.decodeStepSeconds(1, l2)));
        dev.kvlab.harness.api.SummaryRow.Builder f = dev.kvlab.harness.api.SummaryRow.builder();
        f.put("engine_calibration", src);
        f.put("engine_kind", kind.label);
        f.put("timed_by", how);
        f.put("flops", hw.bf16Flops());
        f.put("bytes_per_s", hw.hbmBandwidth());
        f.put("attention_efficiency", att.efficiency());
        f.put("small_pass_attention_efficiency", att.smallPassEfficiency());
        f.put("small_pass_tokens", att.smallPassTokens());
        f.put("attention_span", att.span());
        f.put("sum_compute_memory", att.sumComputeMemory());
        f.put("slots", slots);
        if (behindComputed >= 0) f.put("suffix_prompt_tokens_computed_by_engine", behindComputed);
        for (FitCheck k : checks) f.put("check: " + k.what(), k.figure());
        if (!clips.isEmpty()) f.put("clips", String.join("; ", clips));
        TwinCalibration t = new TwinCalibration(
                kind.label + " at " + base + " (" + info.path().getFileName() + ")",
                ms,
                hw,
                Dtype.FP16,
                BATCH_TOKENS,
                slots,
                instances,
                Double.NaN,
                Double.NaN,
                0,
                f.build(),
                "local-only");
        return new EndpointCalibration(t, List.copyOf(checks), how);
    }

    /** The engine's tokens per forward pass the fit assumes (llama-server's default n_ubatch; vLLM and SGLang chunk larger). */
    static final int BATCH_TOKENS = 512;

    /** The fitted figures: 1 / compute rate, attention, bandwidth, and what fell back. */
    record Fit(double x, AttentionCost attention, double bandwidth, List<String> clips) {}

    /**
     * The fit, on {@code unit} (the model at 1 FLOP/s and 1 B/s), of prompts in passes of {@code batch} tokens: a cold
     * prompt of {@code l1} taking {@code t1}, of {@code l2} taking {@code t2}, {@code sfx} tokens behind {@code l2} cached
     * taking {@code ts}; decode steps {@code d1} after {@code l1} and {@code d2} after {@code l2}. Prefill: {@code t = Σ
     * lin·x + fpp·pairs·u·(1 + tokens / span)} over the passes (x = 1/F, u = 1/(eF), v = u/span): three equations, three
     * unknowns; without a positive solution, attention's cost per pair is flat (two equations). Decode: short passes'
     * attention from the step's growth with the context; compute and memory summed when that reproduces both steps and
     * the larger of the two does not.
     */
    static Fit fit(
            Roofline unit,
            int batch,
            int l1,
            int l2,
            int sfx,
            double t1,
            double t2,
            double ts,
            double d1,
            double d2,
            double kvBytes) {
        // a summed engine's prompt passes pay their memory traffic too: fit, take it out of the prompts at the fitted
        // bandwidth, and fit again until the figures settle
        Fit f = fitOnce(unit, batch, l1, l2, sfx, t1, t2, ts, d1, d2, kvBytes, 0);
        for (int i = 0; i < 500 && f.attention().sumComputeMemory(); i++) {
            Fit g = fitOnce(unit, batch, l1, l2, sfx, t1, t2, ts, d1, d2, kvBytes, f.bandwidth());
            if (!g.attention().sumComputeMemory()) break;
            boolean settled =
                    Math.abs(g.x() / f.x() - 1) < 1e-12 && Math.abs(g.bandwidth() / f.bandwidth() - 1) < 1e-12;
            f = g;
            if (settled) break;
        }
        return f;
    }

    /** Memory seconds of a prompt of {@code n} behind {@code ctx} in passes of {@code batch} at {@code bw} (0: none). */
    private static double promptMemory(Roofline unit, int batch, int n, int ctx, double kvBytes, double bw) {
        if (!(bw > 0)) return 0;
        double s = 0;
        for (int done = 0; done < n; ) {
            int t = Math.min(batch, n - done);
            s += (unit.weightBytes() + (ctx + done + t) * kvBytes) / bw;
            done += t;
        }
        return s;
    }

    private static Fit fitOnce(
            Roofline unit,
            int batch,
            int l1,
            int l2,
            int sfx,
            double t1,
            double t2,
            double ts,
            double d1,
            double d2,
            double kvBytes,
            double memoryBw) {
        t1 -= promptMemory(unit, batch, l1, 0, kvBytes, memoryBw);
        t2 -= promptMemory(unit, batch, l2, 0, kvBytes, memoryBw);
        ts -= promptMemory(unit, batch, sfx, l2, kvBytes, memoryBw);
        List<String> clips = new ArrayList<>();
        double fpp = unit.flopsPerPair();
        double[][] a = {row(unit, batch, l1, 0), row(unit, batch, l2, 0), row(unit, batch, sfx, l2)};
        double[] sol = solve(a, new double[] {t1, t2, ts});
        double x, u, span;
        if (sol != null && sol[0] > 0 && sol[1] > 0 && sol[2] > 0) {
            x = sol[0];
            u = sol[1];
            span = u / sol[2];
        } else {
            double[] two = solve(new double[][] {{a[0][0], a[0][1]}, {a[1][0], a[1][1]}}, new double[] {t1, t2});
            span = 0;
            if (two != null && two[0] > 0 && two[1] > 0) {
                x = two[0];
                u = two[1];
                clips.add("attention's cost per pair did not grow with the pass's size: flat (no span)");
            } else {
                x = t2 / (a[1][0] + a[1][1]);
                u = x; // attention FLOPs at the compute rate
                clips.add(
                        "the two cold prompts did not separate linear work from attention: attention at the compute rate");
            }
        }
        double e = x / u;
        double factor1 = span > 0 ? 1 + 1 / span : 1;
        // decode: the step's growth with the context is its attention (short passes' kernel)
        double perPair = (d2 - d1 - (memoryBw > 0 ? (l2 - l1) * kvBytes / memoryBw : 0))
                / (l2 - l1); // less the KV reads' growth when summed
        double small = e;
        int smallTokens = 1;
        if (perPair > 1.5 * u * fpp * factor1) {
            small = fpp * x * factor1 / perPair;
            smallTokens = Math.max(2, sfx / 2);
        } else if (!(perPair > 0))
            clips.add("the decode step did not grow with the context: short passes' attention as long passes'");
        AttentionCost max = new AttentionCost(e, small, smallTokens, span, false);
        double bwMax = (unit.weightBytes() + (l1 + 1) * kvBytes) / d1;
        double compute1 = (unit.linearFlops(1) + fpp * (l1 + 1) * factor1 / (smallTokens > 1 ? small : e)) * x;
        double memory1 = d1 - compute1;
        if (memory1 > 0.05 * d1) {
            double bwSum = (unit.weightBytes() + (l1 + 1) * kvBytes) / memory1;
            double compute2 = (unit.linearFlops(1) + fpp * (l2 + 1) * factor1 / (smallTokens > 1 ? small : e)) * x;
            double sum2 = compute2 + (unit.weightBytes() + (l2 + 1) * kvBytes) / bwSum;
            double max2 = Math.max(compute2, (unit.weightBytes() + (l2 + 1) * kvBytes) / bwMax);
            if (Math.abs(sum2 / d2 - 1) < Math.abs(max2 / d2 - 1))
                return new Fit(x, new AttentionCost(e, small, smallTokens, span, true), bwSum, List.copyOf(clips));
        }
        return new Fit(x, max, bwMax, List.copyOf(clips));
    }

    /** Linear FLOPs, attention FLOPs and attention FLOPs × pass tokens of a prompt of {@code n} behind {@code ctx}, in passes of {@code batch}. */
    private static double[] row(Roofline unit, int batch, int n, int ctx) {
        double lin = 0, att = 0, att2 = 0;
        for (int done = 0; done < n; ) {
            int t = Math.min(batch, n - done);
            double p = unit.attentionFlops(Roofline.causalPairs(t, ctx + done));
            lin += unit.linearFlops(t);
            att += p;
            att2 += p * t;
            done += t;
        }
        return new double[] {lin, att, att2};
    }

    /** Gaussian elimination with partial pivoting; null when singular. */
    static double[] solve(double[][] a, double[] b) {
        int n = b.length;
        double[][] m = new double[n][n + 1];
        for (int i = 0; i < n; i++) {
            System.arraycopy(a[i], 0, m[i], 0, n);
            m[i][n] = b[i];
        }
        for (int c = 0; c < n; c++) {
            int p = c;
            for (int r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
            double[] tmp = m[c];
            m[c] = m[p];
            m[p] = tmp;
            if (Math.abs(m[c][c]) < 1e-300) return null;
            for (int r = 0; r < n; r++) {
                if (r == c) continue;
                double f = m[r][c] / m[c][c];
                for (int k = c; k <= n; k++) m[r][k] -= f * m[c][k];
            }
        }
        double[] out = new double[n];
        for (int i = 0; i < n; i++) out[i] = m[i][n] / m[i][i];
        return Double.isFinite(out[0]) ? out : null;
    }

    /**
     * Times one completion of {@code prompt} with {@code tokens} output tokens; where the engine reports no timings, also
     * one of a single token on {@code other} (a prompt as long, as cold: the same prompt again would hit the cache) for the
     * client's prompt time and decode gap.
     */
    private static Timed time(EngineClient c, URI base, String model, String prompt, String other, int tokens) {
        long t0 = System.nanoTime();
        JsonNode r = complete(c, base, model, prompt, tokens);
        double wall = (System.nanoTime() - t0) / 1e9;
        JsonNode tm = r.path("timings");
        if (tm.path("prompt_ms").isNumber()) {
            double perToken = tm.path("predicted_n").asInt() > 1
                            && tm.path("predicted_ms").isNumber()
                    ? tm.path("predicted_ms").asDouble()
                            / 1e3
                            / tm.path("predicted_n").asInt()
                    : Double.NaN;
            return new Timed(
                    tm.path("prompt_ms").asDouble() / 1e3,
                    perToken,
                    tm.path("prompt_n").asInt(-1),
                    true);
        }
        // client timing: the one-token answer is the prompt (and one step); the N-token answer's extra time over N - 1
        // steps
        if (tokens <= 1 || other == null) return new Timed(wall, Double.NaN, -1, false);
        long t1 = System.nanoTime();
        complete(c, base, model, other, 1);
        double one = (System.nanoTime() - t1) / 1e9;
        return new Timed(one, Math.max(1e-6, (wall - one) / (tokens - 1)), -1, false);
    }

    private static JsonNode complete(EngineClient c, URI base, String model, String prompt, int tokens) {
        ObjectNode b = JsonNodeFactory.instance.objectNode();
        b.put("model", model);
        b.put("prompt", prompt);
        b.put("max_tokens", tokens);
        b.put("temperature", 0);
        b.put("ignore_eos", true);
        b.put("stream", false);
        EngineClient.Reply r = c.post(base, "/v1/completions", b);
        if (!r.ok())
            throw new BadInputException("--endpoint " + base + ": /v1/completions answered "
                    + (r.unreachable()
                            ? r.error()
                            : r.status() + ": "
                                    + (r.body() == null
                                            ? ""
                                            : r.body()
                                                    .substring(
                                                            0,
                                                            Math.min(
                                                                    200,
                                                                    r.body().length())))));
        JsonNode n = c.json(r);
        if (n == null) throw new BadInputException("--endpoint " + base + ": /v1/completions did not answer JSON");
        return n;
    }

    /** The model's shape: the GGUF given, else the one llama-server's {@code /props} names (model_path) when this machine has it. */
    static GgufModelInfo shape(EngineClient c, URI base, Path gguf) {
        Path p = gguf;
        if (p == null) {
            JsonNode props = c.json(c.get(base, "/props"));
            String mp = props == null ? "" : props.path("model_path").asText("");
            if (!mp.isBlank() && Files.isRegularFile(Path.of(mp))) p = Path.of(mp);
        }
        if (p == null)
            throw new BadInputException("--endpoint " + base
                    + ": the model's shape is needed to fit its roofline: give its GGUF (--gguf FILE, or "
                    + "target.gguf) — the server does not name a model file on this machine");
        try {
            return Gguf.read(p);
        } catch (IOException e) {
            throw new BadInputException("--gguf " + p + ": " + e.getMessage());
        }
    }

    private static HardwareSpec hardware(
            ModelSpec m, double flops, double bandwidth, AttentionCost att, String source) {
        long ram =
                dev.kvlab.harness.api.MachineMemory.now().totalBytes(); // this machine's physical memory (0: unknown)
        return new HardwareSpec(
                "endpoint-" + m.id(),
                "an OpenAI-compatible engine, calibrated from its answers",
                List.of(),
                source,
                flops,
                null,
                bandwidth,
                Math.max(1_000_000_000L, ram),
                bandwidth,
                1.0,
                1.0,
                att,
                new KvLoadCost(0, 1e15));
    }

    static double median(List<Double> v) {
        double[] a = v.stream()
                .filter(Double::isFinite)
                .mapToDouble(Double::doubleValue)
                .toArray();
        if (a.length == 0) return Double.NaN;
        Arrays.sort(a);
        return a[a.length / 2];
    }

    /** As {@code kvlab calibrate --endpoint} prints it. */
    public String text() {
        StringBuilder o = new StringBuilder();
        HardwareSpec hw = twin.hardware();
        o.append(String.format(
                Locale.ROOT,
                "%s%nas a roofline: %.3g FLOP/s, %.3g B/s (efficiency 1); attention at %.3g of the compute rate, %.3g in passes "
                        + "shorter than %d tokens; %d slot(s); timed by %s%n",
                twin.engine(),
                hw.bf16Flops(),
                hw.hbmBandwidth(),
                hw.attention().efficiency(),
                hw.attention().smallPassEfficiency(),
                hw.attention().smallPassTokens(),
                twin.sequences(),
                source));
        for (FitCheck k : checks)
            o.append(String.format(
                    Locale.ROOT,
                    "  %-36s measured %9.3f ms, the roofline %9.3f ms (%+.0f%%)%n",
                    k.what(),
                    k.measured() * 1e3,
                    k.predicted() * 1e3,
                    k.error() * 100));
        return o.toString();
    }
}
