package dev.kvlab.harness.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.Catalogs;
import dev.kvlab.harness.api.catalog.Catalog;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.input.BadInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogTest {

    @Test
    void shipsTheRequiredModelsAndHardware() {
        Catalog c = Catalogs.builtIn();
        assertThat(c.models())
                .extracting(ModelSpec::id)
                .contains(
                        "llama-3-8b",
                        "llama-3-70b",
                        "qwen2.5-7b",
                        "qwen2.5-72b",
                        "mixtral-8x7b",
                        "deepseek-v3",
                        "qwen2.5-0.5b",
                        "llama-3.2-1b");
        assertThat(c.hardware()).extracting(h -> h.id()).contains("a800", "h800", "h100", "h200");
        ModelSpec mixtral = c.model("mixtral-8x7b");
        assertThat(mixtral.activeParams()).isLessThan(mixtral.parameters());
        assertThat(c.model("deepseek-v3").isMla()).isTrue();
        assertThat(c.model("deepseek-v3").attentionKind()).isEqualTo("mla");
        assertThat(c.model("llama-3-8b").attentionKind()).isEqualTo("gqa");
        assertThat(c.hardware("h200").hbmCapacity()).isEqualTo(141_000_000_000L);
        assertThat(c.hardware("h100").prefillMfu()).isBetween(0.0, 1.0);
    }

    @Test
    void namesAreCaseInsensitiveWithAliases() {
        Catalog c = Catalogs.builtIn();
        assertThat(c.model("Llama-3-8B").id()).isEqualTo("llama-3-8b");
        assertThat(c.model("META-LLAMA-3-8B").id()).isEqualTo("llama-3-8b");
        assertThat(c.hardware("H100-SXM").id()).isEqualTo("h100");
        assertThatThrownBy(() -> c.model("gpt-5"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("unknown model 'gpt-5'")
                .hasMessageContaining("llama-3-8b");
    }

    @Test
    void userFilesAddAndOverrideById(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a.yaml"), """
                models:
                  - id: tiny-test
                    layers: 2
                    hidden_size: 64
                    attention_heads: 4
                    kv_heads: 2
                    head_dim: 16
                    parameters: 1e6
                    max_context: 1024
                hardware:
                  - id: h100
                    name: H100 derated
                    bf16_flops: 500e12
                    hbm_bandwidth: 3e12
                    hbm_capacity: 80GB
                    host_link_bandwidth: 50e9
                    prefill_mfu: 0.4
                    decode_bandwidth_utilization: 0.6
                """);
        Catalog c = Catalogs.load(List.of(dir));
        assertThat(c.model("TINY-test").layers()).isEqualTo(2);
        assertThat(c.hardware("h100").bf16Flops()).isEqualTo(500e12);
        assertThat(c.model("llama-3-8b").layers()).isEqualTo(32);
    }

    @Test
    void badCatalogEntriesNameFileAndLine(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("bad.yaml");
        Files.writeString(f, """
                models:
                  - id: x
                    layers: 2
                    hidden_size: 64
                    attention_heads: 4
                    kv_heads: 2
                    head_dim: 16
                    parameters: 1e6
                    max_context: 1024
                    colour: blue
                """);
        assertThatThrownBy(() -> Catalogs.load(List.of(f)))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(f + ":10")
                .hasMessageContaining("unknown key 'models[0].colour'");
        Files.writeString(f, """
                models:
                  - id: x
                    layers: 2
                    hidden_size: 64
                    attention_heads: 4
                    kv_heads: 3
                    head_dim: 16
                    parameters: 1e6
                    max_context: 1024
                """);
        assertThatThrownBy(() -> Catalogs.load(List.of(f)))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining(f + ":")
                .hasMessageContaining("multiple of kv_heads");
    }
}
