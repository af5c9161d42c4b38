package dev.kvlab.harness.openai.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.RequestRecord;
import dev.kvlab.harness.api.SummaryRow;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import org.junit.jupiter.api.Test;

/**
 * The figures of an {@code openai} cell against stand-in engines that speak vLLM's, SGLang's and LMCache's endpoints
 * and metric text ({@link StandInEngine}): every hit attributed to the tier that served it, every unknown NaN with its
 * reason, every impossible figure NaN, and the cache-state verdicts claiming only what they proved.
 */
class EngineTruthTest {

    /** A shared-prefix workload: 2 groups of {@code perGroup} prompts sharing {@code prefix} tokens. */
    static String config(StandInEngine e, String cacheState, int prefix, int perGroup) {
        return """
                mode: live
                seed: 3
                target: {kind: openai, endpoints: [%s], model: standin, api: completions}
                cache_state: %s
                workload:
                  generator: {kind: shared-prefix, groups: 2, prompts_per_group: %d, prefix_tokens: %d, suffix_tokens: 32, output_tokens: 4}
                  arrival: {process: constant, rate: 50}
                slo: {ttft_ms: 5000}
                """.formatted(e.base(), cacheState, perGroup, prefix);
    }

    static CellResult run(StandInEngine e, String cacheState, String... sets) {
        return run(config(e, cacheState, 128, 6), sets);
    }

    static CellResult run(String yaml, String... sets) {
        ConfigTree t = ConfigTree.parse(yaml, "truth.yaml", null);
        for (String s : sets) t.set(s);
        return new CellRunner().run(t.bind());
    }

    static double num(SummaryRow j, String key) {
        Object v = j.get(key);
        return v instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    @Test
    void anEngineThatReportsNothingGivesNaNWithTheReasonNeverZero() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.NOTHING)) {
            CellResult r = run(e, "hot");
            SummaryRow j = r.json();
            assertThat(r.summary().get(Columns.COMPLETED)).isEqualTo(12);
            for (String k : new String[] {
                "engine_cached_prompt_tokens",
                "remote_hit_ratio",
                "local_hit_ratio",
                "engine_cached_hit_ratio",
                "engine_local_hit_ratio",
                "engine_external_hit_ratio"
            }) assertThat(num(j, k)).as(k).isNaN();
            for (var c : new dev.kvlab.harness.api.Column<?>[] {
                Columns.FETCHED_BYTES,
                Columns.FALLBACKS,
                Columns.WRONG_HITS_USED,
                Columns.WRITTEN_BACK_BYTES,
                Columns.REJECTED_BLOCKS,
                Columns.TP
            }) assertThat(r.summary().get(c)).as(c.name()).isNull();
            assertThat((String) j.get("engine_cached_prompt_tokens_reason")).contains("0 of 12 responses");
            assertThat((String) j.get("tp_reason")).contains("does not report its tensor parallelism");
            assertThat((String) j.get(Columns.ENGINE_HITS_SOURCE.name()))
                    .contains("no prefix-cache counters")
                    .contains("no external cache counters");
            assertThat((String) j.get("cache_state_verification"))
                    .startsWith("not verified")
                    .contains("no cached-token counts");
            // requests.csv: a count the engine did not report is NaN, not 0
            for (RequestRecord q : r.requests()) {
                assertThat(q.localHitTokens()).isEqualTo(RequestRecord.UNKNOWN);
                assertThat(q.fetchedBytes()).isEqualTo(RequestRecord.UNKNOWN);
                assertThat(q.fetchMs()).isNaN();
            }
        }
    }

    @Test
    void sglangCachedTokensAreSplitByCacheSourceDeviceAndHostLocalStorageExternal() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.SGLANG)) {
            SummaryRow j = run(e, "hot").json();
            double device = num(j, "engine_device_hit_ratio"),
                    host = num(j, "engine_host_hit_ratio"),
                    storage = num(j, "engine_storage_hit_ratio");
            double local = num(j, "engine_local_hit_ratio"),
                    external = num(j, "engine_external_hit_ratio"),
                    all = num(j, "engine_cached_hit_ratio");
            assertThat(device).isPositive();
            assertThat(host).isPositive();
            assertThat(storage).isPositive();
            assertThat(local).isCloseTo(device + host, within(1e-12));
            assertThat(external).isCloseTo(storage, within(1e-12));
            // the stand-in splits each hit 50/30/20 over device, host and storage, and reports every tier per response
            assertThat(local / external).isCloseTo(4.0, within(0.2));
            assertThat(device / host).isCloseTo(5.0 / 3, within(0.1));
            assertThat(local + external).isCloseTo(all, within(1e-9));
            assertThat(num(j, "local_hit_ratio")).isEqualTo(local);
            assertThat(num(j, "remote_hit_ratio")).isEqualTo(external);
            assertThat(num(j, "tp")).isEqualTo(2);
            assertThat((String) j.get(Columns.ENGINE_HITS_SOURCE.name()))
                    .contains("cache_source=device+host")
                    .contains("storage_MooncakeStore");
        }
    }

    @Test
    void sglangWithoutCacheSourceSaysOnlyAllTiers() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.SGLANG_UNSPLIT)) {
            SummaryRow j = run(e, "hot").json();
            assertThat(num(j, "engine_local_hit_ratio")).isNaN();
            assertThat(num(j, "engine_external_hit_ratio")).isNaN();
            assertThat(num(j, "engine_cached_hit_ratio")).isPositive();
            assertThat((String) j.get(Columns.ENGINE_HITS_SOURCE.name())).contains("does not say which tier served");
        }
    }

    @Test
    void vllmPrefixCacheCountersAreTheLocalTierInEitherNaming() throws Exception {
        for (StandInEngine.Kind k :
                new StandInEngine.Kind[] {StandInEngine.Kind.VLLM, StandInEngine.Kind.VLLM_PRE_092}) {
            try (StandInEngine e = new StandInEngine(k)) {
                SummaryRow j = run(e, "hot").json();
                double local = num(j, "engine_local_hit_ratio");
                assertThat(local).as(k.name()).isPositive();
                // no connector: every cached token per response is the GPU prefix cache's, which the counters count too
                assertThat(local).as(k.name()).isCloseTo(num(j, "engine_cached_hit_ratio"), within(1e-12));
                assertThat(num(j, "engine_device_hit_ratio")).isEqualTo(local);
                assertThat(num(j, "engine_external_hit_ratio")).as(k.name()).isNaN();
                assertThat((String) j.get(Columns.ENGINE_HITS_SOURCE.name()))
                        .as(k.name())
                        .contains(k == StandInEngine.Kind.VLLM ? "vllm prefix_cache_hits/queries" : "before 0.9.2");
            }
        }
    }

    @Test
    void lmcacheBesideVllmIsExternalAndItsLookupPairIsItsOwnColumn() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM)) {
            e.lmcacheChunk = 64;
            e.gpuBlocks = 24; // a GPU prefix cache of 24 blocks: prompts it evicted come back from LMCache's chunks
            SummaryRow j = run(e, "hot").json();
            double local = num(j, "engine_local_hit_ratio"), external = num(j, "engine_external_hit_ratio");
            assertThat(local).isGreaterThanOrEqualTo(0.0); // measured: the GPU evicted what the replay asks for
            assertThat(external).isPositive().isLessThanOrEqualTo(1.0);
            assertThat(local + external).isCloseTo(num(j, "engine_cached_hit_ratio"), within(1e-12));
            assertThat(num(j, "engine_lookup_hit_ratio")).isPositive().isLessThanOrEqualTo(1.0);
            assertThat((String) j.get(Columns.ENGINE_HITS_SOURCE.name()))
                    .contains("vllm external_prefix_cache_hits/queries")
                    .contains("lmcache retrieval")
                    .contains("lmcache lookup");
        }
    }

    @Test
    void cachedTokensAboveThePromptAreImpossibleAndGiveNaN() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM)) {
            e.noMetrics = true; // the lie is per response only
            e.cachedLie = 3;
            CellResult r = run(e, "hot");
            SummaryRow j = r.json();
            assertThat(num(j, "engine_cached_hit_ratio")).isNaN();
            assertThat(num(j, "local_hit_ratio")).isNaN();
            assertThat((String) j.get(Columns.ENGINE_HITS_SOURCE.name()))
                    .contains("more cached tokens than prompt tokens")
                    .contains("impossible");
            assertThat((String) j.get("cache_state_verification"))
                    .startsWith("not verified")
                    .contains("impossible");
        }
    }

    @Test
    void countersThatGoBackwardsAreAResetSaidNeverANegativeRatio() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM)) {
            e.restartAfter = 12 + 6; // the warm-up's 12 completions, then half the measured ones
            SummaryRow j = run(e, "hot").json();
            assertThat(num(j, "engine_local_hit_ratio")).isNaN();
            assertThat((String) j.get(Columns.ENGINE_HITS_SOURCE.name())).contains("counter reset");
        }
    }

    @Test
    void truncatedStreamsAreFailuresWithoutALatencySample() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM)) {
            e.truncate = true;
            CellResult r = run(e, "cold", "target.reset=vllm");
            assertThat(r.summary().get(Columns.COMPLETED)).isZero();
            assertThat(r.summary().get(Columns.FAILED)).isEqualTo(12);
            assertThat(r.summary().get(Columns.TTFT_P50)).isNaN();
            assertThat(r.summary().get(Columns.ITL_P99)).isNaN();
            assertThat(r.summary().get(Columns.E2EL_P99)).isNaN();
            assertThat(r.requests()).allSatisfy(q -> assertThat(q.status()).startsWith("failed: truncated"));
        }
    }

    @Test
    void vllmResetIsVerifiedWhenHonestAndRefusedWhenItLies() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM)) {
            CellResult r = run(e, "cold", "target.reset=vllm");
            assertThat((String) r.json().get("cache_state_verification"))
                    .startsWith("verified")
                    .contains("probe of 256 tokens")
                    .contains("left in the engine's first tier")
                    .doesNotContain("pushed out")
                    .contains("before the reset the probes hit the engine's vllm prefix cache")
                    .contains("no hits after the reset");
            assertThat((String) r.json().get("cache_state_protocol")).contains("POST /reset_prefix_cache");
            assertThat(e.resets.get()).isEqualTo(1);
        }
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM)) {
            e.honestReset = false;
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> run(e, "cold"))
                    .isInstanceOf(BadInputException.class)
                    .hasMessageContaining("could not be verified")
                    .hasMessageContaining("POST /reset_prefix_cache")
                    .hasMessageContaining("another cache tier");
            assertThat((System.nanoTime() - t0) / 1e9).isLessThan(60);
        }
    }

    @Test
    void aConnectorTierTheResetDoesNotReachIsCaught() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM)) {
            e.lmcacheChunk = 64; // vLLM's reset empties its GPU prefix cache, not LMCache's chunks
            assertThatThrownBy(() -> run(e, "cold"))
                    .isInstanceOf(BadInputException.class)
                    .hasMessageContaining("could not be verified");
        }
    }

    @Test
    void sglangFlushIsVerifiedAndStorageThatSurvivesItIsCaught() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.SGLANG)) {
            CellResult r = run(e, "cold");
            assertThat((String) r.json().get("cache_state_verification")).startsWith("verified");
            assertThat((String) r.json().get("cache_state_protocol")).contains("POST /flush_cache");
        }
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.SGLANG)) {
            e.storageSurvivesFlush = true; // sglang#40659
            assertThatThrownBy(() -> run(e, "cold"))
                    .isInstanceOf(BadInputException.class)
                    .hasMessageContaining("/flush_cache")
                    .hasMessageContaining("storage");
        }
    }

    @Test
    void theProbeIsSizedFromWhatTheEngineCaches() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM)) {
            e.block = 512; // caches in units of 512 tokens (an LMCache chunk, large pages): a 256-token probe is never
            // cached
            CellResult r = run(config(e, "cold", 600, 2));
            assertThat((String) r.json().get("cache_state_verification"))
                    .startsWith("verified")
                    .contains("probe of 512 tokens");
        }
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM)) {
            e.block = 512; // ... and a workload of shorter prompts cannot hit it: nothing to reset
            CellResult r = run(config(e, "cold", 128, 2));
            assertThat((String) r.json().get("cache_state_protocol")).isEqualTo("none needed");
            assertThat((String) r.json().get("cache_state_verification"))
                    .contains("[256] tokens")
                    .contains("caches no prompt as long as the workload's");
        }
    }

    @Test
    void aHotWarmUpClaimsHitsOnlyBeyondTheBosAndNoCacheOnlyWhereItCouldHaveHit() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM)) {
            SummaryRow j = run(e, "hot").json();
            assertThat((String) j.get("cache_state_verification"))
                    .startsWith("hits verified")
                    .contains("beyond the 1 special token");
        }
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM)) {
            e.block = 256; // the prompts (160 tokens, replayed whole by the measured phase) are shorter than what it
            // caches
            SummaryRow j = run(e, "hot").json();
            assertThat((String) j.get("cache_state_verification"))
                    .startsWith("no hits:")
                    .contains("units longer than 160 tokens");
        }
        EngineServer.Evidence none = new EngineServer.Evidence(12, 12, 0, null, 0, null, 0, 0, 0, 0, 0);
        EngineServer.Evidence bosOnly = new EngineServer.Evidence(12, 12, 0, null, 0, null, 0, 1, 12, 1800, 160);
        assertThat(HotVerification.of(none, none, 1)).startsWith("not verified: no request repeated a prefix");
        assertThat(HotVerification.of(none, bosOnly, 1))
                .startsWith("no hits beyond the special tokens")
                .contains("at most 1 cached token");
        EngineServer.Evidence hit = new EngineServer.Evidence(12, 12, 0, null, 0, null, 3, 144, 400, 1800, 160);
        assertThat(HotVerification.of(none, hit, 1)).startsWith("hits verified").contains("3 of 12 measured responses");
    }

    @Test
    void aWorkloadNoneOfWhoseRequestsFitsTheContextIsRefusedBeforeItRuns() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM)) {
            e.context = 100;
            assertThatThrownBy(() -> run(e, "hot"))
                    .isInstanceOf(BadInputException.class)
                    .hasMessageContaining("context of 100 tokens")
                    .hasMessageContaining("every one of its 12 requests");
            e.context = 164;
            CellResult r = run(config(e, "hot", 128, 6)); // 128 + 32 + 4 = 164: fits
            assertThat((String) r.json().get("prompt_context_check")).startsWith("every request fits");
        }
    }

    @Test
    void aTokenizeThatAnswersSomethingElseIsSaidSoNotCalledMissing() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM)) {
            e.tokenizeNotJson = true;
            SummaryRow j = run(e, "hot").json();
            assertThat((String) j.get("prompt_token_check"))
                    .contains("not JSON")
                    .doesNotContain("has no /tokenize");
        }
    }
}
