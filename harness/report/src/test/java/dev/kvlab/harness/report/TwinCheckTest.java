package dev.kvlab.harness.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.kvlab.harness.api.Columns;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sim-twin verdict: tolerances as stated, and a cause named from the live cell's own figures. */
class TwinCheckTest {

    private static Map<String, JsonNode> row(double... kv) {
        String[] k = {
            "ttft_p50_ms",
            "twin_ttft_p50_ms",
            "fetch_p50_ms",
            "twin_fetch_p50_ms",
            "event_lag_p99_us",
            "twin_ttft_p50_live_share"
        };
        Map<String, JsonNode> m = new HashMap<>();
        for (int i = 0; i < kv.length; i++) m.put(k[i], JsonNodeFactory.instance.numberNode(kv[i]));
        return m;
    }

    @Test
    void withinToleranceAgrees() {
        assertThat(TwinCheck.of(row(10, 8.5, 6, 5)).agrees()).isTrue(); // -15%, -17%
        assertThat(TwinCheck.of(row(1.0, 1.45, 0, 0)).agrees()).isTrue(); // +45% but within 0.5 ms
        assertThat(TwinCheck.of(new HashMap<>())).as("no twin: no verdict").isNull();
    }

    @Test
    void disagreementNamesACause() {
        TwinCheck slowFetch = TwinCheck.of(row(20, 10, 15, 7, 100));
        assertThat(slowFetch.agrees()).isFalse();
        assertThat(slowFetch.cause()).contains("loopback contention");
        TwinCheck late = TwinCheck.of(row(10, 6, 5, 5, 8000));
        assertThat(late.cause()).contains("queueing in the harness");
        TwinCheck edge = TwinCheck.of(row(3.1, 0.8, 6, 5.5, 4000, 0.45));
        assertThat(edge.cause()).contains("between two modes");
    }

    @Test
    void aRealEngineWhosePrefillLeftItsCalibrationIsNamed() {
        Map<String, JsonNode> r = row(170, 6, 1.5, 0.9, 20000);
        r.put(Columns.ENGINE_PREFILL_TOKENS_PER_S.name(), JsonNodeFactory.instance.numberNode(160.0));
        r.put(Columns.ENGINE_CALIBRATED_PREFILL_TOKENS_PER_S.name(), JsonNodeFactory.instance.numberNode(3300.0));
        assertThat(TwinCheck.of(r).cause())
                .contains("real engine prefilled at 160 tokens/s")
                .contains("3300 tokens/s");
        r.put(Columns.ENGINE_PREFILL_TOKENS_PER_S.name(), JsonNodeFactory.instance.numberNode(3000.0));
        assertThat(TwinCheck.of(r).cause())
                .as("within its calibration: another cause")
                .doesNotContain("real engine");
    }

    /** A real engine whose steps took longer (or shorter) than its twin's price for them: the machine's speed named first. */
    @Test
    void aRealEngineSlowerThanItsTwinsPriceForTheSameStepsIsNamed() {
        Map<String, JsonNode> r = row(170, 120, 1.5, 1.4, 200);
        r.put(Columns.ENGINE_STEP_TIME_OVER_TWIN.name(), JsonNodeFactory.instance.numberNode(1.31));
        assertThat(TwinCheck.of(r).cause())
                .contains("steps took 1.31×")
                .contains("ran slower than when it was calibrated");
        r.put(Columns.ENGINE_STEP_TIME_OVER_TWIN.name(), JsonNodeFactory.instance.numberNode(0.72));
        assertThat(TwinCheck.of(r).cause()).contains("steps took 0.72×").contains("faster");
        r.put(Columns.ENGINE_STEP_TIME_OVER_TWIN.name(), JsonNodeFactory.instance.numberNode(1.04));
        assertThat(TwinCheck.of(r).cause()).as("within 10%: another cause").doesNotContain("steps took");
    }
}
