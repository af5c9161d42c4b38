package dev.kvlab.harness.openai.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.harness.api.twin.EndpointCalibrationPlan;
import dev.kvlab.harness.api.twin.TwinCalibration;
import dev.kvlab.harness.core.internal.sim.TwinRun;
import dev.kvlab.harness.testsupport.LlamaServer;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The twin of a real llama-server (a synthesized 4-layer model, 2 slots, 1 thread): calibrated from its own timings
 * ({@code timings.prompt_ms}, {@code predicted_ms}), the model's shape found through the file {@code /props} names;
 * the fitted roofline reproduces the timings it was fitted on, and an openai cell's twin (the openai target's
 * {@code calibrate}, the engine's slots and prefix cache) runs on the sim clock.
 */
class EndpointCalibrationLlamaServerTest {

    @TempDir
    Path dir;

    @Test
    void aLlamaServerIsTimedByItsOwnTimingsAndItsCellHasATwin() throws Exception {
        LlamaServer.binary();
        Path model = Gguf.synth(new SynthSpec(4, 256, 8, 2, 688, 32000, WeightType.F16, 7, 4096), dir.resolve("m.gguf"))
                .path();
        try (LlamaServer s = LlamaServer.start(model, dir, "-np", "2", "-t", "1", "-fa", "off", "-c", "4096");
                EngineClient c = new EngineClient(Executors.newCachedThreadPool())) {
            var cal = EndpointCalibration.measure(
                    c,
                    java.net.URI.create(s.url()),
                    "default",
                    null,
                    new EndpointCalibrationPlan(64, 512, 32, 8, 2),
                    1);
            assertThat(cal.source()).contains("engine's own timings");
            assertThat(cal.twin().sequences()).isEqualTo(2);
            // the fit is anchored on the long cold prompt and the decode step after the short one (whatever else a
            // loaded
            // machine does to the short timings: a clip is named, never hidden)
            for (var k : cal.checks()) {
                if (k.what().equals("cold prompt of 512"))
                    assertThat(Math.abs(k.error())).as(cal.text()).isLessThan(0.25);
                if (k.what().equals("decode step after 64"))
                    assertThat(Math.abs(k.error())).as(cal.text()).isLessThan(0.01);
            }
            // the openai target's own calibration of a cell, and the twin of the cell on the sim clock
            var cfg = ConfigTree.parse("""
                    mode: live
                    seed: 3
                    target: {kind: openai, endpoints: [%s], model: default}
                    workload:
                      generator: {kind: shared-prefix, groups: 2, prompts_per_group: 5, prefix_tokens: 256, suffix_tokens: 32, output_tokens: 8}
                      arrival: {process: poisson, rate: 2}
                    slo: {ttft_ms: 2000}
                    """.formatted(s.url()), "engine.yaml", null)
                    .bind();
            OpenAiTarget target = new OpenAiTarget();
            assertThat(target.noTwin(cfg)).isNull();
            TwinCalibration t = target.calibrate(cfg);
            assertThat(t.tiers()).isEqualTo("local-only");
            CellResult twin = TwinRun.run(cfg, t);
            assertThat(twin.summary().p50Ms(Metric.TTFT)).isPositive().isFinite();
        }
    }
}
