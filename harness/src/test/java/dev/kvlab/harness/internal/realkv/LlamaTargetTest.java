package dev.kvlab.harness.internal.realkv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.BadInputException;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellRunner;
import dev.kvlab.harness.api.config.ConfigTree;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.gguf.GgufSynth;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The llama.cpp target on a tiny synthesized model, on the live clock: a hot remote-only cell restores real KV
 * fetched from the store (the bytes per fetched token are the model's KV bytes per token plus the block header), a
 * sampled restore check finds the restored logits equal to a recompute's, a corrupted store is recomputed and never
 * used, and keys the target does not read are refused. Skipped with the
 * reason where the pinned llama.cpp library is unavailable; with {@code KVLAB_CI=1} that fails instead.
 */
class LlamaTargetTest {

    @TempDir static Path dir;
    static Path model;
    static long kvBytesPerToken;

    @BeforeAll
    static void model() throws Exception {
        RealKvTestSupport.library(); // skip (or fail on CI) before synthesizing anything
        SynthSpec spec = new SynthSpec(2, 256, 4, 2, 688, 32000, WeightType.F16, 5, 2048);
        model = GgufSynth.write(spec, dir.resolve("tiny.gguf")).path();
        kvBytesPerToken = spec.kvBytesPerToken();
    }

    static RunConfig config(String... sets) {
        ConfigTree t = ConfigTree.parse("""
                mode: live
                seed: 2
                target: {kind: llama.cpp, model: %s, threads: 1}
                cluster: {instances: 2, router: round-robin}
                store: {backend: bundled, nodes: 2, capacity: 64MiB}
                transport: tcp
                policy: fetch
                cache_state: hot
                tiers: remote-only
                workload:
                  generator: {kind: shared-prefix, groups: 2, prompts_per_group: 3, prefix_tokens: 256, suffix_tokens: 32, output_tokens: 4, block_tokens: 32}
                  arrival: {process: constant, rate: 20}
                slo: {ttft_ms: 10000}
                """.formatted(model), "real-kv.yaml", null);
        for (String set : sets) t.set(set);
        return t.bind();
    }

    @Test
    void aHotRemoteCellRestoresTheModelsRealKvFromTheStore() {
        CellResult r = new CellRunner().run(config("target.verify_restore=1 in 1"));
        var s = r.summary();
        assertThat(s.failed()).isZero();
        assertThat(s.completed()).isEqualTo(6);
        assertThat(s.remoteHitRatio()).isGreaterThan(0.5);
        assertThat(s.wrongHitsUsed()).isZero();
        assertThat(s.fallbacks()).isZero();
        long tokens = ((Number) r.json().get(RealKvColumns.FETCHED_TOKENS)).longValue();
        assertThat(tokens).isPositive();
        double perToken = (double) s.fetchedBytes() / tokens;
        // the model's K and V rows of every layer, plus one header per 32-token block
        assertThat(perToken).isEqualTo(kvBytesPerToken + (double) KvBlockObject.HEADER_BYTES / 32);
        assertThat(((Number) r.json().get(RealKvColumns.KV_BYTES_PER_TOKEN)).longValue()).isEqualTo(kvBytesPerToken);
        assertThat(s.emulated()).contains("real engine on CPU").contains("synthesized random weights");
        // every restore was checked against a recompute of the same tokens: the next token's logits agree
        assertThat(((Number) r.json().get("verify_restore_checks")).longValue()).isEqualTo(r.json().get("restores"));
        assertThat(((Number) r.json().get("verify_restore_max_logit_diff")).doubleValue()).isLessThanOrEqualTo(0.02);
    }

    @Test
    void corruptedBlocksAreRecomputedNeverUsed() {
        CellResult r = new CellRunner().run(config("fault=corrupt", "fault_at=0", "fault_params.corrupt_fraction=1"));
        var s = r.summary();
        assertThat(s.failed()).isZero();
        assertThat(s.fallbacks()).isPositive();
        assertThat(s.wrongHitsUsed()).isZero();
        assertThat(s.rejectedBlocks()).isPositive();
    }

    @Test
    void keysTheTargetDoesNotReadAreRefusedByName() {
        assertThatThrownBy(() -> config("hardware=a100")).isInstanceOf(BadInputException.class).hasMessageContaining("'hardware'")
                .hasMessageContaining("llama.cpp target");
        assertThatThrownBy(() -> config("cluster.tp=2")).isInstanceOf(BadInputException.class).hasMessageContaining("'cluster.tp'");
        assertThatThrownBy(() -> config("target.threads=0")).isInstanceOf(BadInputException.class).hasMessageContaining("'target.threads'");
        assertThatThrownBy(() -> config("target.verify_restore=every other")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.verify_restore'");
    }

    @Test
    void aCellCarriesTheSimTwinOfItsCalibratedEngineAndTheBreakevenPredictedOnIt() {
        CellResult r = new CellRunner().run(config("target.calibrate_tokens=256"));
        var x = r.json();
        double rate = ((Number) x.get(RealKvColumns.CALIBRATED_PREFILL_TOKENS_PER_S)).doubleValue();
        assertThat(rate).isPositive();
        assertThat(((Number) x.get(RealKvColumns.CALIBRATED_DECODE_MS)).doubleValue()).isPositive();
        assertThat(((Number) x.get("link_measured_bytes_per_s")).doubleValue()).isPositive();
        // the twin ran: its TTFT and (hot remote-only) its fetches
        assertThat(((Number) x.get(dev.kvlab.harness.internal.SimTwin.TTFT_P50)).doubleValue()).isPositive();
        assertThat(((Number) x.get(dev.kvlab.harness.internal.SimTwin.FETCH_P50)).doubleValue()).isPositive();
        // calibrated on a 256-token prefill, the roofline gives that prefill back at the workload's 256-token shared prefix
        assertThat(((Number) x.get(RealKvColumns.SHARED_PREFIX_TOKENS)).intValue()).isEqualTo(256);
        double predicted = ((Number) x.get(RealKvColumns.PREDICTED_RECOMPUTE_MS)).doubleValue();
        assertThat(predicted).isCloseTo(256 / rate * 1e3, org.assertj.core.api.Assertions.within(256 / rate * 1e3 * 1e-3));
        assertThat(((Number) x.get(RealKvColumns.PREDICTED_FETCH_MS)).doubleValue()).isPositive();
        assertThat(((Number) x.get(RealKvColumns.BREAKEVEN_PREDICTED_TOKENS)).longValue()).isPositive();
    }

    @Test
    void calibrateTokensZeroRunsNoTwinAndBadValuesAreRefused() {
        CellResult r = new CellRunner().run(config("target.calibrate_tokens=0", "cache_state=cold", "tiers=none"));
        assertThat(r.json()).doesNotContainKeys(dev.kvlab.harness.internal.SimTwin.TTFT_P50, RealKvColumns.CALIBRATED_PREFILL_TOKENS_PER_S,
                RealKvColumns.BREAKEVEN_PREDICTED_TOKENS);
        assertThat(r.summary().completed()).isEqualTo(6);
        assertThatThrownBy(() -> config("target.calibrate_tokens=8")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.calibrate_tokens'");
    }
}
