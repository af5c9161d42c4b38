package dev.kvlab.harness.internal.openai;

/**
 * The engine's own hit ratios over a measured phase, per tier, from its Prometheus counters (differences across the
 * phase) or, for the local tier, from its per-response cached-token counts: vLLM {@code prefix_cache_hits/queries}
 * (local) and {@code external_prefix_cache_hits/queries} (a connector such as LMCache or Mooncake), SGLang
 * {@code cached_tokens/prompt_tokens}, LMCache {@code num_hit_tokens/num_lookup_tokens}. NaN where the engine says
 * nothing, never 0; {@code source} says where each figure came from, or why it is missing.
 */
record EngineHits(double local, double external, String source) {

    static EngineHits of(PromMetrics before, PromMetrics after, EngineServer.EngineTotals t) {
        double local = Double.NaN, external = Double.NaN;
        String ls, es;
        Double q = PromMetrics.delta(before, after, "vllm:prefix_cache_queries_total", "vllm:prefix_cache_queries");
        Double h = PromMetrics.delta(before, after, "vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits");
        Double sq = PromMetrics.delta(before, after, "sglang:prompt_tokens_total");
        Double sh = PromMetrics.delta(before, after, "sglang:cached_tokens_total");
        if (q != null && h != null && q > 0) {
            local = h / q;
            ls = "local: vllm prefix_cache_hits/queries";
        } else if (sq != null && sh != null && sq > 0) {
            local = sh / sq;
            ls = "local: sglang cached_tokens/prompt_tokens";
        } else if (t.reportedPromptTokens() > 0 && !Double.isNaN(t.reportedCachedTokens())) {
            local = t.reportedCachedTokens() / t.reportedPromptTokens();
            ls = "local: per-response cached/prompt tokens";
        } else {
            ls = "local: not reported (no prefix-cache counters in /metrics, no cached tokens in every response)";
        }
        Double eq = PromMetrics.delta(before, after, "vllm:external_prefix_cache_queries_total", "vllm:external_prefix_cache_queries");
        Double eh = PromMetrics.delta(before, after, "vllm:external_prefix_cache_hits_total", "vllm:external_prefix_cache_hits");
        Double lq = PromMetrics.delta(before, after, "lmcache:num_lookup_tokens_total", "lmcache:num_lookup_tokens");
        Double lh = PromMetrics.delta(before, after, "lmcache:num_hit_tokens_total", "lmcache:num_hit_tokens");
        if (eq != null && eh != null && eq > 0) {
            external = eh / eq;
            es = "external: vllm external_prefix_cache_hits/queries";
        } else if (lq != null && lh != null && lq > 0) {
            external = lh / lq;
            es = "external: lmcache num_hit_tokens/num_lookup_tokens";
        } else {
            es = "external: not reported (no external cache counters in /metrics)";
        }
        return new EngineHits(local, external, ls + "; " + es);
    }
}
