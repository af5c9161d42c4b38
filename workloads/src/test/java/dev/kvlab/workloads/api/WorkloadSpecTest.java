package dev.kvlab.workloads.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kvlab.workloads.Workloads;
import org.junit.jupiter.api.Test;

class WorkloadSpecTest {

    /** As the harness binds configs: snake_case keys, unknown keys are errors. */
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** How a config binder builds a spec: pick the record by kind, bind the remaining keys. */
    static WorkloadSpec bind(String yaml) throws Exception {
        ObjectNode node = (ObjectNode) YAML.readTree(yaml);
        JsonNode kind = node.remove("kind");
        return YAML.treeToValue(node, WorkloadSpec.kindOf(kind == null ? null : kind.asText()));
    }

    @Test
    void recordsBindFromYamlWithDefaultsForOmittedFields() throws Exception {
        WorkloadSpec s = bind("""
                kind: doc-qa
                documents: 10
                document_tokens: 8192
                repeats: 3
                question_tokens: 64
                output_tokens: 32
                order: tile
                """);
        assertThat(s).isEqualTo(new WorkloadSpec.DocQa(10, 8192, 3, 64, 32, "tile", 512));
        WorkloadSpec t = bind("kind: trace\npath: x.jsonl\n");
        assertThat(t).isEqualTo(new WorkloadSpec.Trace("x.jsonl", 0, false, 0));
        WorkloadSpec c = bind(
                "kind: CHAT\nusers: 4\nrounds: 3\nsystem_prompt_tokens: 100\nquestion_tokens: 10\nanswer_tokens: 10\nblock_tokens: 16\n");
        assertThat(c).isEqualTo(new WorkloadSpec.Chat(4, 3, 1, 100, 0, 10, 10, 16));
        ArrivalSpec a = YAML.readValue("process: gamma\nrate: 4.5\nburstiness: 0.5\n", ArrivalSpec.class);
        assertThat(a).isEqualTo(ArrivalSpec.gamma(4.5, 0.5));
        assertThat(YAML.readValue("{}", ArrivalSpec.class)).isEqualTo(ArrivalSpec.trace(1));
        assertThat(YAML.readValue("process: closed\nusers: 8\nthink_ms: 250\n", ArrivalSpec.class))
                .isEqualTo(ArrivalSpec.closed(8, 250));
        assertThat(YAML.readValue("process: poisson\nrate: 2\nmax_concurrency: 16\n", ArrivalSpec.class))
                .isEqualTo(ArrivalSpec.poisson(2).withMaxConcurrency(16));
    }

    @Test
    void unknownKindsAndFieldsAreErrors() {
        assertThatThrownBy(() -> bind("kind: chats\n"))
                .isInstanceOf(WorkloadFormatException.class)
                .hasMessage("unknown workload kind 'chats' (one of [trace, chat, shared-prefix, doc-qa, zipf])");
        assertThatThrownBy(() -> bind("kind: zipf\nprefixs: 3\n")).hasMessageContaining("prefixs");
        assertThatThrownBy(() -> bind("kind: zipf\nprefixTokens: 3\n")).hasMessageContaining("prefixTokens");
    }

    @Test
    void validationNamesTheField() {
        Namespace ns = Namespace.of("m");
        assertThatThrownBy(() -> Workloads.open(new WorkloadSpec.Chat(0, 3, 1, 10, 0, 10, 10, 0), ns, 1))
                .isInstanceOf(WorkloadFormatException.class)
                .hasMessage("workload.users: must be >= 1, got 0");
        assertThatThrownBy(() -> Workloads.open(new WorkloadSpec.DocQa(3, 100, 2, 10, 10, "tiles", 0), ns, 1))
                .hasMessage("workload.order: must be one of [random, tile, interleave], got 'tiles'");
        assertThatThrownBy(() -> Workloads.open(new WorkloadSpec.Zipf(10, 100, -1, 5, 10, 10, 0), ns, 1))
                .hasMessage("workload.exponent: must be a number >= 0, got -1.0");
        assertThatThrownBy(() ->
                        Workloads.open(new WorkloadSpec.SharedPrefix(100_000, 100_000, 10, 10, 1, null, 0), ns, 1))
                .hasMessageStartingWith(
                        "workload.prompts_per_group: groups x prompts_per_group = 10000000000 requests, more than");
        assertThatThrownBy(() -> Workloads.open(new WorkloadSpec.Trace(null, 0, false, 0), ns, 1))
                .hasMessage("workload.path: missing (the trace file)");
        assertThatThrownBy(() -> Workloads.open(new WorkloadSpec.Trace("/nonexistent/t.jsonl", 0, false, 0), ns, 1))
                .isInstanceOf(WorkloadFormatException.class)
                .hasMessage("/nonexistent/t.jsonl: no such file");
    }
}
