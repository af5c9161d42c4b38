package dev.kvlab.harness.openai.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link EngineHits} on the Prometheus text the engines expose (shaped on vLLM's, SGLang's and LMCache's
 * documentation): each pair read as the engine defines it and attributed to its tier, and every figure that cannot be
 * a ratio (hits above queries, a counter that went backwards or vanished, a split that leaves tokens unattributed) NaN
 * with its reason.
 */
class EngineHitsTest {

    private static final EngineServer.EngineTotals NONE = new EngineServer.EngineTotals(1);

    private static PromMetrics vllm(double queries, double hits) {
        return PromMetrics.parse("""
                # HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
                # TYPE vllm:prefix_cache_queries_total counter
                vllm:prefix_cache_queries_total{engine="0",model_name="m"} %s
                # HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
                # TYPE vllm:prefix_cache_hits_total counter
                vllm:prefix_cache_hits_total{engine="0",model_name="m"} %s
                """.formatted(queries, hits));
    }

    @Test
    void vllmCountersAreDifferencedSeriesBySeriesOverLabelSets() {
        PromMetrics a = PromMetrics.parse("""
                vllm:prefix_cache_queries_total{engine="0",model_name="m"} 100.0
                vllm:prefix_cache_queries_total{engine="1",model_name="m"} 50
                vllm:prefix_cache_hits_total{engine="0",model_name="m"} 10
                """);
        PromMetrics b = PromMetrics.parse("""
                vllm:prefix_cache_queries_total{engine="0",model_name="m"} 300.0
                vllm:prefix_cache_queries_total{engine="1",model_name="m"} 50
                vllm:prefix_cache_hits_total{engine="0",model_name="m"} 160
                """);
        EngineHits h = EngineHits.of(a, b, NONE, false);
        assertThat(h.local()).isEqualTo(0.75);
        assertThat(h.device()).isEqualTo(0.75);
        assertThat(h.external()).isNaN();
        assertThat(h.source()).contains("external: no external cache counters");
        assertThat(EngineHits.of(PromMetrics.NONE, PromMetrics.NONE, NONE, false)
                        .local())
                .isNaN();
    }

    @Test
    void hitsAboveQueriesAreImpossibleNotARatioAboveOne() {
        EngineHits h = EngineHits.of(vllm(0, 0), vllm(100, 300), NONE, false);
        assertThat(h.local()).isNaN();
        assertThat(h.source()).contains("impossible (300 hits of 100)");
    }

    @Test
    void aCounterThatWentBackwardsIsAResetNotANegativeRatio() {
        EngineHits h = EngineHits.of(vllm(1000, 800), vllm(200, 40), NONE, false);
        assertThat(h.local()).isNaN();
        assertThat(h.source()).contains("counter reset").contains("1000 -> 200");
        PromMetrics gone = PromMetrics.parse("vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"m\"} 900\n");
        assertThat(EngineHits.of(vllm(1000, 800), gone, NONE, false).source()).contains("vanished");
    }

    @Test
    void vllmBefore092IsReadUnderItsOldNamesAndTheV0GaugeIsSaidToBeNoCounter() {
        String old = """
                # HELP vllm:gpu_prefix_cache_queries_total GPU prefix cache queries, in terms of number of queried tokens.
                # TYPE vllm:gpu_prefix_cache_queries_total counter
                vllm:gpu_prefix_cache_queries_total{engine="0",model_name="m"} %s
                vllm:gpu_prefix_cache_queries_created{engine="0",model_name="m"} 1.7537953269352946e+09
                # TYPE vllm:gpu_prefix_cache_hits_total counter
                vllm:gpu_prefix_cache_hits_total{engine="0",model_name="m"} %s
                vllm:gpu_prefix_cache_hits_created{engine="0",model_name="m"} 1.7537953269353123e+09
                """;
        EngineHits h = EngineHits.of(
                PromMetrics.parse(old.formatted(10, 0)), PromMetrics.parse(old.formatted(410, 100)), NONE, false);
        assertThat(h.local()).isEqualTo(0.25);
        assertThat(h.source()).contains("before 0.9.2");
        PromMetrics v0 = PromMetrics.parse("vllm:gpu_prefix_cache_hit_rate{model_name=\"m\"} 0.42\n");
        EngineHits g = EngineHits.of(v0, v0, NONE, false);
        assertThat(g.local()).isNaN();
        assertThat(g.source()).contains("only the gauge vllm:gpu_prefix_cache_hit_rate");
    }

    private static PromMetrics sglang(double prompt, String... sources) {
        StringBuilder sb = new StringBuilder("sglang:prompt_tokens_total{model_name=\"m\"} " + prompt + "\n");
        for (int i = 0; i + 1 < sources.length; i += 2)
            sb.append("sglang:cached_tokens_total{cache_source=\"")
                    .append(sources[i])
                    .append("\",model_name=\"m\"} ")
                    .append(sources[i + 1])
                    .append('\n');
        return PromMetrics.parse(sb.toString());
    }

    @Test
    void sglangsCacheSourcesAreTiersAndALabelAppearingMidPhaseCountsFromZero() {
        PromMetrics a = sglang(1000, "device", "100");
        PromMetrics b = sglang(2000, "device", "600", "host", "200", "storage_HiCacheFile", "100");
        EngineHits h = EngineHits.of(a, b, NONE, false);
        assertThat(h.device()).isEqualTo(0.5);
        assertThat(h.host()).isEqualTo(0.2);
        assertThat(h.storage()).isEqualTo(0.1);
        assertThat(h.local()).isCloseTo(0.7, within(1e-12));
        assertThat(h.external()).isEqualTo(0.1);
        assertThat(h.source()).contains("storage_HiCacheFile");
    }

    @Test
    void sglangsTotalFallbackIsNotAttributedToATier() {
        EngineHits h = EngineHits.of(sglang(0, "total", "0"), sglang(1000, "total", "400"), NONE, false);
        assertThat(h.local()).isNaN();
        assertThat(h.external()).isNaN();
        assertThat(h.source()).contains("does not say which tier served 400");
    }

    @Test
    void lmcachesTwoPairsAreReadAsLmcacheDefinesThem() {
        String t = """
                lmcache:num_requested_tokens_total{model_name="m",worker_id="0"} %s
                lmcache:num_hit_tokens_total{model_name="m",worker_id="0"} %s
                lmcache:num_lookup_tokens_total{model_name="m",worker_id="0"} %s
                lmcache:num_lookup_hits_total{model_name="m",worker_id="0"} %s
                """;
        // retrieval 300 of 1000 requested; lookups found 900 of 2000 looked up: the pairs differ, and neither is the
        // other's
        EngineHits h = EngineHits.of(
                PromMetrics.parse(t.formatted(0, 0, 0, 0)),
                PromMetrics.parse(t.formatted(1000, 300, 2000, 900)),
                NONE,
                false);
        assertThat(h.external()).isEqualTo(0.3);
        assertThat(h.lookup()).isEqualTo(0.45);
        assertThat(h.source())
                .contains("lmcache retrieval num_hit_tokens/num_requested_tokens")
                .contains("lmcache lookup");
    }

    @Test
    void perResponseCountsAreEveryTierExceptOnLlamaCpp() {
        EngineServer.EngineTotals t = new EngineServer.EngineTotals(1);
        t.add(outcome(200, 150), 200);
        t.add(outcome(200, 50), 200);
        EngineHits vllm = EngineHits.of(PromMetrics.NONE, PromMetrics.NONE, t, false);
        assertThat(vllm.allTiers()).isEqualTo(0.5);
        assertThat(vllm.local()).isNaN();
        EngineHits llama = EngineHits.of(PromMetrics.NONE, PromMetrics.NONE, t, true);
        assertThat(llama.local()).isEqualTo(0.5);
        t.add(outcome(10, 30), 10);
        assertThat(EngineHits.of(PromMetrics.NONE, PromMetrics.NONE, t, true).local())
                .isNaN();
        t.reset();
        t.add(outcome(6, -5), 6);
        EngineHits neg = EngineHits.of(PromMetrics.NONE, PromMetrics.NONE, t, true);
        assertThat(neg.allTiers()).isNaN();
        assertThat(neg.source()).contains("negative cached-token count").doesNotContain("reported cached tokens in 0");
        assertThat(t.cachedTokensReason()).contains("negative");
    }

    private static StreamedCompletion.Outcome outcome(int prompt, int cached) {
        return new StreamedCompletion.Outcome(
                200, null, new long[] {1}, 4, prompt, cached, Double.NaN, "length", false);
    }

    @Test
    void endpointsAreKeptApartSoOnesResetIsNotHiddenByAnothersGrowth() {
        PromMetrics a = PromMetrics.of(List.of(vllm(1000, 500), vllm(0, 0))),
                b = PromMetrics.of(List.of(vllm(100, 50), vllm(5000, 2500)));
        EngineHits h = EngineHits.of(a, b, NONE, false);
        assertThat(h.local()).isNaN();
        assertThat(h.source()).contains("counter reset");
    }
}
