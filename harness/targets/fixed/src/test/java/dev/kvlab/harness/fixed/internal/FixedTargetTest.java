package dev.kvlab.harness.fixed.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import org.junit.jupiter.api.Test;

/** The fixed target through the normal run path (config, validation, the framework's steps and measurement, the row). */
class FixedTargetTest {

    static final String CONFIG = """
            mode: live
            seed: 7
            target: {kind: fixed, delay: 40ms, tokens: 3}
            cache_state: cold
            workload:
              generator: {kind: shared-prefix, groups: 2, prompts_per_group: 10, prefix_tokens: 256, suffix_tokens: 16, output_tokens: 8}
              arrival: {process: constant, rate: 50}
            slo: {ttft_ms: 1000}
            """;

    @Test
    void aLiveCellsTtftIsTheConfiguredDelayAndEveryAnswerHasTheConfiguredTokens() {
        CellResult r = new CellRunner()
                .run(ConfigTree.parse(CONFIG, "fixed.yaml", null).bind());
        var s = r.summary();
        assertThat(s.get(Columns.COMPLETED)).isEqualTo(20L);
        assertThat(s.get(Columns.FAILED)).isZero();
        // the first token comes 40 ms after the request arrived, and it arrives at (or just after) its intended time:
        // never below the delay, and above it only by how late the live clock ran the arrival and the answer (each at
        // most
        // its largest lag; 1 ms for the code between)
        double lagMaxMs = ((Number) r.extras().get(Columns.EVENT_LAG_MAX_US.name())).doubleValue() / 1000;
        assertThat(s.get(Columns.TTFT_P50)).isBetween(40.0, 40.0 + 2 * lagMaxMs + 1);
        assertThat(s.get(Columns.TTFT_P99)).isBetween(40.0, 40.0 + 2 * lagMaxMs + 1);
        // 3 tokens per answer, whatever the workload's 8: all at once, so the output rate is 3 x the completion rate
        assertThat(s.get(Columns.OUTPUT_TOKENS_PER_S))
                .isCloseTo(3 * s.get(Columns.THROUGHPUT_RPS), org.assertj.core.data.Offset.offset(1e-6));
        assertThat(r.extras().get(Columns.TARGET_KIND)).isEqualTo("fixed");
        assertThat(r.describe().get("target")).contains("40.000 ms").contains("3 tokens");
    }

    @Test
    void aKeyTheTargetDoesNotUseIsRefusedNamingIt() {
        assertThatThrownBy(() -> ConfigTree.parse(
                                CONFIG.replace("tokens: 3}", "tokens: 3, jitter: 1ms}"), "fixed.yaml", null)
                        .bind())
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("target.jitter");
        assertThatThrownBy(() -> ConfigTree.parse(CONFIG, "fixed.yaml", null)
                        .set("store.nodes=3")
                        .bind())
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("store")
                .hasMessageContaining("not used by the fixed target");
        assertThatThrownBy(() -> ConfigTree.parse(CONFIG.replace("delay: 40ms, ", ""), "fixed.yaml", null)
                        .bind())
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("target.delay");
    }
}
