package dev.kvlab.harness.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class PlanAndBreakevenCommandTest {

    @Test
    void planByModel() {
        Cli c = Cli.run("plan", "--model", "Llama-3-8B", "--tokens", "4096", "--capacity", "1GiB", "--json");
        assertThat(c.exit()).isZero();
        JsonNode j = c.json();
        assertThat(j.get("kv_bytes_per_token").asLong()).isEqualTo(131_072);
        assertThat(j.get("kv_bytes_per_token_per_rank").asLong()).isEqualTo(131_072);
        assertThat(j.get("kv_bytes_per_request").asLong()).isEqualTo(512L << 20);
        assertThat(j.get("tokens_per_gib").asDouble()).isEqualTo(8192.0);
        assertThat(j.get("store_requests").asLong()).isEqualTo(2);
        assertThat(j.get("store_blocks").asLong()).isEqualTo(16);
        // a capacity in tokens is this model's KV for that many tokens
        JsonNode t = Cli.run("plan", "--model", "llama-3-70b", "--tokens", "4096", "--capacity", "3Mtok", "--json")
                .json();
        assertThat(t.get("store_capacity_bytes").asLong()).isEqualTo(3_000_000L * 327_680);
        assertThat(Cli.run("plan", "--model", "llama-3-70b", "--capacity", "3Qtok")
                        .exit())
                .isEqualTo(2);
    }

    @Test
    void planTpAboveKvHeadsAndMlaByDimensions() {
        JsonNode gqa =
                Cli.run("plan", "--model", "llama-3-8b", "--tp", "16", "--json").json();
        assertThat(gqa.get("kv_heads_per_rank").asInt()).isEqualTo(1);
        assertThat(gqa.get("kv_bytes_per_token_per_rank").asLong()).isEqualTo(2L * 32 * 128 * 2);
        assertThat(gqa.get("kv_replication").asInt()).isEqualTo(2);
        JsonNode mla = Cli.run(
                        "plan",
                        "--layers",
                        "61",
                        "--mla-rank",
                        "512",
                        "--rope-dim",
                        "64",
                        "--tp",
                        "8",
                        "--dtype",
                        "fp8",
                        "--json")
                .json();
        assertThat(mla.get("kv_bytes_per_token").asLong()).isEqualTo(61L * 576);
        assertThat(mla.get("kv_bytes_per_token_per_rank").asLong()).isEqualTo(61L * 576);
        JsonNode hw = Cli.run("plan", "--model", "llama-3-8b", "--hardware", "h100", "--json")
                .json();
        assertThat(hw.get("weights_fit").asBoolean()).isTrue();
        assertThat(hw.get("hbm_kv_blocks").asLong()).isBetween(800L, 900L);
        assertThat(Cli.run("plan", "--model", "llama-3-8b").out())
                .contains("kv_bytes_per_token")
                .contains("131,072");
    }

    @Test
    void planBadInputExitsTwo() {
        assertThat(Cli.run("plan", "--model", "nope").exit()).isEqualTo(2);
        assertThat(Cli.run("plan", "--layers", "32").exit()).isEqualTo(2);
        assertThat(Cli.run("plan", "--layers", "32", "--kv-heads", "8", "--head-dim", "128", "--mla-rank", "4")
                        .exit())
                .isEqualTo(2);
        assertThat(Cli.run("plan", "--model", "llama-3-8b", "--dtype", "int3").exit())
                .isEqualTo(2);
        assertThat(Cli.run("plan", "--model", "qwen2.5-7b", "--tp", "3").exit()).isEqualTo(2);
    }

    /** Issue 14, defect 6: sizes beyond 64 bits and absurd TP degrees are refused (exit 2), never printed negative. */
    @Test
    void planOverflowAndBoundsExitTwo() {
        Cli huge = Cli.run("plan", "--layers", "100000", "--kv-heads", "100000", "--head-dim", "100000");
        assertThat(huge.exit()).as(huge.out()).isEqualTo(2);
        assertThat(huge.out()).doesNotContain("-");
        assertThat(huge.err()).contains("do not fit 64 bits");
        Cli tp = Cli.run("plan", "--layers", "32", "--kv-heads", "8", "--head-dim", "128", "--tp", "1000000000");
        assertThat(tp.exit()).isEqualTo(2);
        assertThat(tp.err()).contains("--tp", "4096");
        assertThat(Cli.run("plan", "--layers", "2000000", "--kv-heads", "8", "--head-dim", "128")
                        .exit())
                .isEqualTo(2);
        assertThat(Cli.run("plan", "--model", "llama-3-8b", "--tokens", "100000000000000")
                        .exit())
                .isEqualTo(2);
        assertThat(Cli.run("plan", "--layers", "32", "--kv-heads", "8", "--head-dim", "128", "--json")
                        .json()
                        .get("kv_bytes_per_request")
                        .asLong())
                .isPositive();
    }

    @Test
    void breakevenFlipsWithTheLink() {
        JsonNode fast = Cli.run(
                        "breakeven",
                        "--model",
                        "llama-3-8b",
                        "--hardware",
                        "h100",
                        "--link",
                        "4x200gbps",
                        "--prefix-tokens",
                        "4096",
                        "--json")
                .json();
        JsonNode slow = Cli.run(
                        "breakeven",
                        "--model",
                        "llama-3-8b",
                        "--hardware",
                        "h100",
                        "--link",
                        "5gbps",
                        "--prefix-tokens",
                        "4096",
                        "--json")
                .json();
        assertThat(fast.get("fetch_wins").asBoolean()).isTrue();
        assertThat(slow.get("fetch_wins").asBoolean()).isFalse();
        assertThat(slow.get("recompute_seconds").asDouble())
                .isEqualTo(fast.get("recompute_seconds").asDouble());
        double gbps = fast.get("breakeven_link_gbps").asDouble();
        assertThat(gbps).isBetween(5.0, 800.0);
        assertThat(slow.get("breakeven_prefix_tokens").asLong()).isGreaterThan(4096);
        JsonNode big = Cli.run("breakeven", "--model", "llama-3-70b", "--hardware", "h100", "--link", "5gbps", "--json")
                .json();
        assertThat(big.get("breakeven_prefix_tokens").asLong())
                .isLessThan(slow.get("breakeven_prefix_tokens").asLong());
        assertThat(big.get("weights_fit").asBoolean()).isFalse();
        assertThat(big.get("min_tp_that_fits").asInt()).isEqualTo(2);
    }

    @Test
    void breakevenTextSaysWhereFetchWins() {
        // llama-3-8b (8,192-token context) over 5gbps: fetch only wins far beyond the context, and for very short
        // prefixes
        String slow = Cli.run("breakeven", "--model", "llama-3-8b", "--hardware", "h100", "--link", "5gbps")
                .out();
        assertThat(slow)
                .contains("recompute wins")
                .contains("beyond the model's 8,192-token context")
                .contains("weight-read-bound");
        String fast = Cli.run("breakeven", "--model", "llama-3-8b", "--hardware", "h100", "--link", "4x200gbps")
                .out();
        assertThat(fast).contains("fetch wins at every prefix length").doesNotContain("beyond");
        JsonNode j = Cli.run("breakeven", "--model", "llama-3-8b", "--hardware", "h100", "--link", "5gbps", "--json")
                .json();
        assertThat(j.get("max_context").asInt()).isEqualTo(8192);
    }

    @Test
    void breakevenBadInputExitsTwo() {
        assertThat(Cli.run("breakeven", "--model", "llama-3-8b", "--hardware", "h100", "--link", "fast")
                        .exit())
                .isEqualTo(2);
        assertThat(Cli.run("breakeven", "--model", "llama-3-8b", "--hardware", "tpu", "--link", "10gbps")
                        .exit())
                .isEqualTo(2);
        assertThat(Cli.run("breakeven", "--model", "llama-3-8b", "--hardware", "h100")
                        .exit())
                .isEqualTo(2);
    }
}
