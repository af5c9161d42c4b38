package dev.kvlab.harness.internal.realkv;

import dev.kvlab.harness.api.Columns;
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
        assertThat(s.get(Columns.FAILED)).isZero();
        assertThat(s.get(Columns.COMPLETED)).isEqualTo(6);
        assertThat(s.get(Columns.REMOTE_HIT_RATIO)).isGreaterThan(0.5);
        assertThat(s.get(Columns.WRONG_HITS_USED)).isZero();
        assertThat(s.get(Columns.FALLBACKS)).isZero();
        long tokens = ((Number) r.json().get(Columns.FETCHED_TOKENS.name())).longValue();
        assertThat(tokens).isPositive();
        double perToken = (double) s.get(Columns.FETCHED_BYTES) / tokens;
        // the model's K and V rows of every layer, plus one header per 32-token block
        assertThat(perToken).isEqualTo(kvBytesPerToken + (double) KvBlockObject.HEADER_BYTES / 32);
        assertThat(((Number) r.json().get(Columns.ENGINE_KV_BYTES_PER_TOKEN.name())).longValue()).isEqualTo(kvBytesPerToken);
        assertThat(s.get(Columns.EMULATED_PARTS)).contains("real engine on CPU").contains("synthesized random weights");
        // every restore was checked against a recompute of the same tokens: the next token's logits agree
        assertThat(((Number) r.json().get("verify_restore_checks")).longValue()).isEqualTo(r.json().get("restores"));
        assertThat(((Number) r.json().get("verify_restore_max_logit_diff")).doubleValue()).isLessThanOrEqualTo(0.02);
    }

    @Test
    void corruptedBlocksAreRecomputedNeverUsed() {
        CellResult r = new CellRunner().run(config("fault=corrupt", "fault_at=0", "fault_params.corrupt_fraction=1"));
        var s = r.summary();
        assertThat(s.get(Columns.FAILED)).isZero();
        assertThat(s.get(Columns.FALLBACKS)).isPositive();
        assertThat(s.get(Columns.WRONG_HITS_USED)).isZero();
        assertThat(s.get(Columns.REJECTED_BLOCKS)).isPositive();
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
}
