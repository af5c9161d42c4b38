package dev.kvlab.harness.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.RunValidator;
import org.junit.jupiter.api.Test;

/** KV capacities in tokens ({@code 3Mtok}) are converted with the run's model. */
class TokenCapacityTest {

    private static CellPlan plan(String... sets) {
        ConfigTree t = ConfigTree.defaults()
                .set(
                        "workload.generator",
                        "{kind: shared-prefix, groups: 2, prompts_per_group: 2, prefix_tokens: 1024, suffix_tokens: 10, output_tokens: 4}",
                        "test");
        for (String s : sets) t.set(s);
        return RunValidator.plan(t.bind(), k -> null);
    }

    @Test
    void storeAndDramCapacitiesInTokens() {
        // Llama-3-70B bf16: 80 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes = 320 KiB per token (the paper's 320 KB)
        CellPlan p = plan(
                "model=llama-3-70b",
                "hardware=a800",
                "cluster.tp=8",
                "store.capacity=30Mtok",
                "local.dram_capacity=3Mtok");
        assertThat(p.kv().bytesPerToken()).isEqualTo(327_680);
        assertThat(p.storeCapacity()).isEqualTo(30_000_000L * 327_680);
        // 8 KV heads over 8 ranks: nothing replicated, 3M tokens = floor(3e6 / 512) blocks
        assertThat(p.dramBlocks()).isEqualTo(3_000_000L / 512);
        // the same text on another model is another byte count
        CellPlan small = plan("model=llama-3-8b", "store.capacity=30Mtok");
        assertThat(small.storeCapacity())
                .isEqualTo(30_000_000L * small.kv().bytesPerToken())
                .isNotEqualTo(p.storeCapacity());
    }

    @Test
    void badTokenCapacitiesNameTheKey() {
        assertThatThrownBy(() -> plan("store.capacity=0tok"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("store.capacity");
        assertThatThrownBy(() -> plan("store.capacity=1.5tok"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("store.capacity");
        assertThatThrownBy(() -> plan("local.dram_capacity=3Xtok"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("local.dram_capacity");
    }
}
