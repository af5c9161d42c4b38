package dev.kvlab.harness.openai.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.twin.EndpointCalibrationPlan;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvlab calibrate --endpoint} against an engine answering in vLLM's shape (non-streamed JSON, no timings, the
 * cached tokens in usage): every figure is client-timed, and the decode step comes out as the engine's per-token time;
 * a prefix the engine caches makes the suffix behind it cheap, as the fitted roofline then says; without the model's
 * shape (no GGUF, and a server that names no file) it refuses with the option to give.
 */
class EndpointCalibrationTest {

    @TempDir
    Path dir;

    @Test
    void aVllmShapedEngineIsTimedByTheClientAndItsDecodeStepFound() throws Exception {
        Path gguf = Gguf.synth(new SynthSpec(4, 256, 8, 2, 688, 32000, WeightType.F16, 7, 4096), dir.resolve("m.gguf"))
                .path();
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM);
                EngineClient c = new EngineClient(Executors.newCachedThreadPool())) {
            e.prefillMsPerToken = 0.05;
            e.decodeMsPerToken = 4;
            var cal = EndpointCalibration.measure(
                    c, e.base(), "standin", gguf, new EndpointCalibrationPlan(64, 512, 32, 8, 2), 2);
            assertThat(cal.source()).startsWith("client timing");
            var decode = cal.checks().stream()
                    .filter(k -> k.what().startsWith("decode step after 64"))
                    .findFirst()
                    .orElseThrow();
            assertThat(decode.measured())
                    .isBetween(0.0035, 0.006); // 4 ms a token, and the HTTP round trip's noise spread over 7 steps
            var cold = cal.checks().stream()
                    .filter(k -> k.what().equals("cold prompt of 512"))
                    .findFirst()
                    .orElseThrow();
            var behind = cal.checks().stream()
                    .filter(k -> k.what().startsWith("32 tokens behind"))
                    .findFirst()
                    .orElseThrow();
            assertThat(behind.measured())
                    .isLessThan(cold.measured()); // the engine cached the prefix: only the suffix was computed
            assertThat(cal.twin().instances()).isEqualTo(2);
            assertThat(cal.twin().tiers()).isEqualTo("local-only");
            assertThat(cal.twin().hardware().bf16Flops()).isPositive();
            assertThat(cal.twin().figures().get("timed_by").toString()).contains("client");
        }
    }

    @Test
    void withoutTheModelsShapeItSaysWhatToGive() throws Exception {
        try (StandInEngine e = new StandInEngine(StandInEngine.Kind.VLLM);
                EngineClient c = new EngineClient(Executors.newCachedThreadPool())) {
            assertThatThrownBy(() -> EndpointCalibration.measure(
                            c, e.base(), "standin", null, new EndpointCalibrationPlan(64, 512, 32, 8, 1), 1))
                    .isInstanceOf(BadInputException.class)
                    .hasMessageContaining("--gguf");
        }
    }
}
