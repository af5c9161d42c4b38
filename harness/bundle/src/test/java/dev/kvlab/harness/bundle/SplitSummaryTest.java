package dev.kvlab.harness.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.Metric;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The rules by which request-split shards' summaries become one cell's: added, recomputed, or named as not added. */
class SplitSummaryTest {

    private static ObjectNode shard(
            long requests, double span, double prompt, double cached, double gap, String verification, long startedMs) {
        ObjectNode o = new ObjectMapper().createObjectNode();
        o.put("seed", 3)
                .put("mode", "live")
                .put("requests", requests)
                .put("completed", requests)
                .put("failed", 0);
        o.put("ttft_p50_ms", requests)
                .put("ttft_p99_ms", 1.0)
                .put("ttft_mean_ms", 1.0)
                .put("goodput_rps", requests / span)
                .put("slo_attainment", 1.0 / requests);
        o.put("simulated_seconds", span).put("wall_seconds", span + 1).put("local_hit_ratio", cached / prompt);
        o.put("engine_prompt_tokens", prompt)
                .put("engine_cached_prompt_tokens", cached)
                .put("engine_local_hit_ratio", cached / prompt);
        o.put("engine_cached_hit_ratio", cached / prompt).put("engine_device_hit_ratio", 0.1);
        o.put(
                "engine_hits_source",
                "local: llama.cpp per-response cached/prompt tokens (its tiers are all the instance's own); external: none");
        o.put("engine_external_hit_ratio", 0.5)
                .put("harness_ttft_gap_p50_ms", gap)
                .put("harness_cpu_us_per_request", requests);
        o.put("cache_state_verification", verification)
                .put("request_shard", "x")
                .put("measured_phase_started_epoch_ms", startedMs);
        return o;
    }

    @Test
    void countsAddRatesAndPercentilesAreRecomputedAndTheRestIsNamed() {
        JsonNode a = shard(3, 2.0, 300, 30, 0.4, "verified", 1_000);
        ObjectNode b = shard(1, 4.0, 100, 70, 0.6, "left to shard 1/2", 1_500);
        // figures only one shard has (warmup_requests: kvlab's own, added; a target's own columns, such as the openai
        // target's
        // unsent_requests, are registered where the target is on the class path: the CLI's RequestSplitMergeTest and
        // ColumnsDocWithEveryTargetTest)
        b.put("warmup_requests", 2).put("target_down", "gone");
        Histogram ttft = new Histogram(3);
        for (long us : new long[] {1_000, 2_000, 3_000, 40_000}) ttft.recordValue(us);
        Map<Metric, Histogram> totals = new EnumMap<>(Metric.class);
        totals.put(Metric.TTFT, ttft);
        ObjectNode m = SplitSummary.merge(
                List.of(a, b), List.of("1/2", "2/2"), totals, new SplitSummary.Counts(4, 4, 0, 3, 40));
        assertThat(m.get("requests").asLong()).isEqualTo(4);
        assertThat(m.get("engine_prompt_tokens").asDouble()).isEqualTo(400);
        assertThat(m.get("engine_cached_prompt_tokens").asDouble()).isEqualTo(100);
        assertThat(m.get("engine_local_hit_ratio").asDouble())
                .isEqualTo(0.25)
                .isEqualTo(m.get("local_hit_ratio").asDouble());
        assertThat(m.get("engine_cached_hit_ratio").asDouble()).isEqualTo(0.25);
        assertThat(m.get("engine_device_hit_ratio").isNull())
                .as("a /metrics split is engine-wide: not added")
                .isTrue();
        assertThat(m.get("simulated_seconds").asDouble()).isEqualTo(4.0);
        assertThat(m.get("goodput_rps").asDouble()).isEqualTo(3 / 4.0);
        assertThat(m.get("slo_attainment").asDouble()).isEqualTo(0.75);
        assertThat(m.get("ttft_p50_ms").asDouble())
                .isEqualTo(ttft.getValueAtPercentile(50) / 1000.0)
                .isEqualTo(2.0);
        assertThat(m.get("ttft_p99_ms").asDouble()).isGreaterThan(39.0);
        assertThat(m.get("harness_cpu_us_per_request").asDouble()).isEqualTo((3 * 3 + 1 * 1) / 4.0);
        assertThat(m.get("engine_external_hit_ratio").isNull())
                .as("engine-wide counters are not added")
                .isTrue();
        assertThat(m.get("harness_ttft_gap_p50_ms").isNull())
                .as("medians that differ cannot be added")
                .isTrue();
        assertThat(m.get(SplitSummary.NOT_ADDED).asText())
                .contains("harness_ttft_gap_p50_ms")
                .contains("engine_external_hit_ratio")
                .doesNotContain("ttft_p")
                .doesNotContain("goodput")
                .doesNotContain("local_hit_ratio")
                .doesNotContain("slo_attainment");
        assertThat(m.get("cache_state_verification").asText()).isEqualTo("1/2: verified; 2/2: left to shard 1/2");
        assertThat(m.get("seed").asLong()).isEqualTo(3);
        assertThat(m.get(SplitSummary.HOSTS).asInt()).isEqualTo(2);
        assertThat(m.get(SplitSummary.SKEW).asDouble()).isEqualTo(0.5);
        assertThat(m.has("request_shard")).isFalse();
        assertThat(m.get("warmup_requests").asLong()).isEqualTo(2);
        assertThat(m.get("target_down").asText()).isEqualTo("1/2: -; 2/2: gone");
        assertThat(m.has("measured_phase_started_epoch_ms")).isFalse();
    }

    /** On an engine whose per-response counts are every tier's (vLLM, SGLang), the merged local ratio is not made up from them. */
    @Test
    void perResponseCountsOfEveryTierAreNotMergedIntoTheLocalRatio() {
        ObjectNode a = shard(3, 2.0, 300, 30, 0.4, "verified", 1_000), b = shard(1, 4.0, 100, 70, 0.4, "x", 1_000);
        for (ObjectNode s : List.of(a, b))
            s.put("engine_hits_source", "local: vllm prefix_cache_hits/queries; external: ...");
        ObjectNode m = SplitSummary.merge(
                List.of(a, b), List.of("1/2", "2/2"), Map.of(), new SplitSummary.Counts(4, 4, 0, 3, 40));
        assertThat(m.get("engine_cached_hit_ratio").asDouble()).isEqualTo(0.25);
        assertThat(m.get("engine_local_hit_ratio").isNull()).isTrue();
        assertThat(m.get("local_hit_ratio").isNull()).isTrue();
        assertThat(m.get(SplitSummary.NOT_ADDED).asText()).contains("engine_local_hit_ratio");
    }
}
