package dev.kvlab.harness.openai.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The engine's own hit ratios over a measured phase, attributed to the tier that served them, from its Prometheus
 * counters (differences across the phase) and its per-response cached-token counts. The tiers: <b>local</b> is the
 * instance's own memory (GPU prefix cache, host-memory tier), <b>external</b> a store outside it (a KV connector such
 * as LMCache or Mooncake, SGLang HiCache's storage backend).
 * <ul>
 * <li>vLLM: {@code vllm:prefix_cache_hits/queries} (0.9.2 on; before it {@code vllm:gpu_prefix_cache_hits/queries})
 *     is its GPU prefix cache: local, the device; {@code vllm:external_prefix_cache_hits/queries} the KV connector's:
 *     external.</li>
 * <li>SGLang: {@code sglang:cached_tokens_total / sglang:prompt_tokens_total}, split by its {@code cache_source}
 *     label: {@code device} (GPU) and {@code host} (CPU memory) are local, {@code storage_*} (HiCache's L3: Mooncake,
 *     3FS, files) external; unsplit ({@code total}, or no label) it says only "all tiers".</li>
 * <li>LMCache (beside vLLM): its retrieval pair {@code lmcache:num_hit_tokens / num_requested_tokens} is external
 *     (LMCache's CPU, disk and remote backends together), its lookup pair {@code lmcache:num_lookup_hits /
 *     num_lookup_tokens} (what its lookups found, not what was retrieved) is {@link #lookup}.</li>
 * <li>Per response, {@code cached_tokens} (vLLM's includes the connector's hits) is {@link #allTiers}; it is the local
 *     figure only for llama.cpp, whose tiers (slots, host-RAM prompt cache) are all the instance's own.</li>
 * </ul>
 * Every figure is measured or NaN with the reason in {@link #source}: never 0 for "not reported", and never a ratio
 * outside [0, 1] (hits above queries, cached tokens above prompt tokens, a counter that went backwards are NaN with why).
 *
 * @param local    local hit ratio
 * @param external external hit ratio
 * @param device   of the local, the GPU's (SGLang {@code device}, vLLM's prefix cache)
 * @param host     of the local, host memory's (SGLang {@code host})
 * @param storage  the external storage's (SGLang {@code storage_*})
 * @param allTiers cached / prompt tokens as the responses reported them, every tier together
 * @param lookup   LMCache's lookup hit ratio
 * @param source   where each figure came from, or why it is NaN
 */
record EngineHits(
        double local,
        double external,
        double device,
        double host,
        double storage,
        double allTiers,
        double lookup,
        String source) {

    private static final double NAN = Double.NaN;

    /** A ratio and where it came from (or why it is NaN). */
    private record Figure(double value, String why) {
        static Figure none(String why) {
            return new Figure(NAN, why);
        }
    }

    /**
     * @param perResponseIsLocal whether the per-response counts are the local tier's (every endpoint is llama.cpp)
     */
    static EngineHits of(
            PromMetrics before, PromMetrics after, EngineServer.EngineTotals t, boolean perResponseIsLocal) {
        Figure all = perResponse(t);
        Sglang sg = sglang(before, after);
        Figure vDevice = vllmLocal(before, after);
        Figure local,
                device = Figure.none("not reported"),
                host = Figure.none("not reported"),
                storage = Figure.none("not reported");
        if (vDevice != null) {
            local = vDevice;
            device = vDevice;
        } else if (sg != null) {
            local = sg.local;
            device = sg.device;
            host = sg.host;
            storage = sg.storage;
        } else if (perResponseIsLocal) {
            local = Double.isNaN(all.value)
                    ? all
                    : new Figure(
                            all.value,
                            "llama.cpp per-response cached/prompt tokens (its tiers are all the instance's own)");
        } else {
            local = Figure.none(
                    "no prefix-cache counters in /metrics (per-response cached tokens count every tier: see all-tiers)");
        }
        Figure external = vllmExternal(before, after);
        Figure lmRetrieve = pair(
                before,
                after,
                "lmcache retrieval num_hit_tokens/num_requested_tokens",
                names("lmcache:num_hit_tokens"),
                names("lmcache:num_requested_tokens"));
        Figure lmLookup = pair(
                before,
                after,
                "lmcache lookup num_lookup_hits/num_lookup_tokens",
                names("lmcache:num_lookup_hits"),
                names("lmcache:num_lookup_tokens"));
        if (external == null && lmRetrieve != null) external = lmRetrieve;
        if (external == null && sg != null) external = sg.storage;
        if (external == null) external = Figure.none("no external cache counters in /metrics");
        if (lmLookup == null) lmLookup = Figure.none("no LMCache lookup counters in /metrics");
        String src = "local: " + local.why + "; external: " + external.why + "; all tiers: " + all.why
                + (sg != null ? "; by cache_source: " + sg.note : "")
                + (lmRetrieve != null && external != lmRetrieve
                        ? "; lmcache retrieval: " + lmRetrieve.why + " " + fmt(lmRetrieve.value)
                        : "")
                + (!Double.isNaN(lmLookup.value) ? "; lmcache lookup: " + lmLookup.why : "");
        return new EngineHits(
                local.value, external.value, device.value, host.value, storage.value, all.value, lmLookup.value, src);
    }

    /** A counter's names: with Prometheus' {@code _total} suffix (what its Python client exposes) and without. */
    private static String[] names(String base) {
        return new String[] {base + "_total", base};
    }

    /** vLLM's GPU prefix cache (local): its current counters, else those before 0.9.2; null when it has neither. */
    private static Figure vllmLocal(PromMetrics before, PromMetrics after) {
        Figure f = pair(
                before,
                after,
                "vllm prefix_cache_hits/queries",
                names("vllm:prefix_cache_hits"),
                names("vllm:prefix_cache_queries"));
        if (f != null) return f;
        f = pair(
                before,
                after,
                "vllm gpu_prefix_cache_hits/queries (vLLM before 0.9.2)",
                names("vllm:gpu_prefix_cache_hits"),
                names("vllm:gpu_prefix_cache_queries"));
        if (f != null) return f;
        if (after.has("vllm:gpu_prefix_cache_hit_rate"))
            return Figure.none(
                    "vLLM's V0 engine reports only the gauge vllm:gpu_prefix_cache_hit_rate (its last interval's rate), no counters to"
                            + " difference over the phase");
        return null;
    }

    private static Figure vllmExternal(PromMetrics before, PromMetrics after) {
        return pair(
                before,
                after,
                "vllm external_prefix_cache_hits/queries (the KV connector's)",
                names("vllm:external_prefix_cache_hits"),
                names("vllm:external_prefix_cache_queries"));
    }

    /** {@code hits / queries} of two counters over the phase; null when /metrics has neither. */
    private static Figure pair(
            PromMetrics before, PromMetrics after, String what, String[] hitNames, String[] queryNames) {
        PromMetrics.Delta h = PromMetrics.delta(before, after, null, hitNames),
                q = PromMetrics.delta(before, after, null, queryNames);
        if (h == null && q == null) return null;
        if (h == null || q == null) return Figure.none(what + ": only one of the pair is in /metrics");
        return ratio(what, h, q);
    }

    private static Figure ratio(String what, PromMetrics.Delta h, PromMetrics.Delta q) {
        if (q.reset() != null) return Figure.none(what + ": " + q.reset());
        if (h.reset() != null) return Figure.none(what + ": " + h.reset());
        return ratio(what, h.total(), q.total());
    }

    /** {@code hits / of}, or NaN with why: nothing queried, or an impossible pair. */
    private static Figure ratio(String what, double hits, double of) {
        if (of == 0) return Figure.none(what + ": no queries during the phase");
        if (hits < 0 || of < 0 || hits > of)
            return Figure.none(what + ": impossible (" + fmt(hits) + " hits of " + fmt(of) + ")");
        return new Figure(hits / of, what);
    }

    /** SGLang's cached tokens, split by {@code cache_source}. */
    private record Sglang(Figure local, Figure device, Figure host, Figure storage, String note) {}

    private static Sglang sglang(PromMetrics before, PromMetrics after) {
        PromMetrics.Delta c = PromMetrics.delta(before, after, "cache_source", names("sglang:cached_tokens"));
        PromMetrics.Delta p = PromMetrics.delta(before, after, null, names("sglang:prompt_tokens"));
        if (c == null && p == null) return null;
        String what = "sglang cached_tokens/prompt_tokens";
        if (c == null || p == null) {
            Figure f = Figure.none(what + ": only one of the pair is in /metrics");
            return new Sglang(f, f, f, f, "not split");
        }
        if (c.reset() != null || p.reset() != null) {
            Figure f = ratio(what, c, p);
            return new Sglang(f, f, f, f, "not split");
        }
        double device = 0, host = 0, storage = 0, other = 0;
        List<String> unattributed = new ArrayList<>(), storages = new ArrayList<>();
        for (Map.Entry<String, Double> e : c.byLabel().entrySet()) {
            String s = e.getKey().toLowerCase(Locale.ROOT);
            if (s.equals("device")) device += e.getValue();
            else if (s.equals("host")) host += e.getValue();
            else if (s.startsWith("storage")) {
                storage += e.getValue();
                storages.add(e.getKey());
            } else {
                other += e.getValue();
                if (e.getValue() != 0)
                    unattributed.add(
                            (e.getKey().isEmpty() ? "(no cache_source)" : e.getKey()) + " " + fmt(e.getValue()));
            }
        }
        double prompt = p.total();
        if (!unattributed.isEmpty()) {
            Figure all = ratio(what + " (unsplit: " + String.join(", ", unattributed) + ")", c.total(), prompt);
            Figure f = Figure.none("sglang does not say which tier served " + fmt(other) + " of its cached tokens ("
                    + String.join(", ", unattributed) + "): not attributed to a tier");
            return new Sglang(f, f, f, f, "unsplit: " + fmt(all.value));
        }
        Figure d = ratio(what + " cache_source=device", device, prompt),
                h = ratio(what + " cache_source=host", host, prompt);
        Figure st = ratio(
                what + " cache_source=" + (storages.isEmpty() ? "storage_*" : String.join("+", storages)),
                storage,
                prompt);
        Figure l = ratio(what + " cache_source=device+host", device + host, prompt);
        return new Sglang(
                l, d, h, st, "device " + fmt(d.value) + ", host " + fmt(h.value) + ", storage " + fmt(st.value));
    }

    /** The responses' cached / prompt tokens (every tier), NaN with why unless every response reported both, possibly. */
    private static Figure perResponse(EngineServer.EngineTotals t) {
        String what = "per-response cached/prompt tokens";
        if (t.responses == 0) return Figure.none(what + ": no response");
        if (t.cachedNegative > 0)
            return Figure.none(what + ": " + t.cachedNegative + " of " + t.responses
                    + " responses reported a negative cached-token count (e.g. " + t.cachedNegativeExample
                    + "): impossible");
        if (t.cachedAbovePrompt > 0)
            return Figure.none(what + ": " + t.cachedAbovePrompt + " of " + t.responses
                    + " responses reported more cached tokens than prompt tokens" + " (e.g. "
                    + t.cachedAbovePromptExample + "): impossible");
        if (t.cachedReported != t.responses)
            return Figure.none(what + ": the engine reported cached tokens in " + t.cachedReported + " of "
                    + t.responses + " responses");
        if (t.promptReported != t.responses)
            return Figure.none(what + ": the engine reported prompt tokens in " + t.promptReported + " of "
                    + t.responses + " responses");
        return ratio(what, t.cachedTokens, t.promptTokens);
    }

    private static String fmt(double d) {
        if (Double.isNaN(d)) return "NaN";
        return d == Math.rint(d) && Math.abs(d) < 1e15
                ? Long.toString((long) d)
                : String.format(Locale.ROOT, "%.4g", d);
    }
}
