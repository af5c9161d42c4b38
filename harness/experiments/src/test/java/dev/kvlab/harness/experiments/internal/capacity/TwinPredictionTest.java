package dev.kvlab.harness.experiments.internal.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.bundle.Provenance;
import dev.kvlab.harness.experiments.internal.matrix.MatrixParser;
import dev.kvlab.harness.experiments.internal.matrix.MatrixRunner;
import dev.kvlab.harness.report.ReportRenderer;
import dev.kvlab.harness.report.text.CapacityText;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Predicted, then measured, end to end through the capacity search on an engine whose behaviour is known (the
 * {@code twin-test} target: the emulated roofline, optionally slower than the calibration it gives): the twin's
 * capacity is written to {@code twins/<cell>.json} before the first probe, an engine that is exactly its twin is
 * predicted with no error, one twice as slow is predicted too high with the cause named, {@code predict: false} turns it
 * off, and a price gives each capacity's cost per million output tokens and its change against the baseline.
 */
class TwinPredictionTest {

    static final ObjectMapper JSON = new ObjectMapper();

    static final String YAML = """
            name: twin
            mode: live
            seed: 5
            model: llama-3-8b
            hardware: h100
            target: {kind: twin-test, slowdown: SLOW, price_per_hour: 4}
            cluster: {instances: 1}
            scheduler: {max_running: 8}
            workload:
              generator: {kind: shared-prefix, groups: 8, prompts_per_group: 20, prefix_tokens: 2048, suffix_tokens: 128, output_tokens: 32}
              arrival: {process: poisson, rate: 4}
            slo: {ttft_ms: 300}
            factors:
              tiers: [none, local-only]
            baseline: {tiers: none}
            capacity: {knob: workload.arrival.rate, start: 4, min: 0.1, max: 4000, target_attainment: 0.9, precision: 0.05, max_probes: 16,
                       early_stop: false, PREDICT}
            """;

    static Path run(Path t, String slow, String predict, StringWriter log) throws Exception {
        Path f = t.resolve("m.yaml");
        Files.writeString(f, YAML.replace("SLOW", slow).replace("PREDICT", predict));
        MatrixSpec s = MatrixParser.load(f, List.of(), null);
        MatrixRunner r = new MatrixRunner(
                new CellRunner()::run,
                List.of(),
                Provenance.capture("test", List.of("run")),
                Clock.systemUTC(),
                new ReportRenderer()::render,
                new PrintWriter(log),
                1);
        return r.run(s, t.resolve("runs"), false).bundle();
    }

    @Test
    void anEngineThatIsItsTwinIsPredictedExactlyAndTheTwinWasWrittenFirst(@TempDir Path t) throws Exception {
        StringWriter log = new StringWriter();
        Path b = run(t, "1", "predict: true", log);
        JsonNode cap = JSON.readTree(b.resolve("capacity.json").toFile());
        for (JsonNode s : cap.get("summary")) {
            JsonNode p = s.get("predicted");
            // the live search starts at the prediction, so it brackets the knee from there: the same engine, found to
            // the
            // search's precision from another start (the twin's search started at capacity.start)
            assertThat(Math.abs(p.get("error").asDouble())).isLessThanOrEqualTo(0.05);
            assertThat(p.get("within_tolerance").asBoolean()).isTrue();
            JsonNode at = p.get("at_measured_capacity");
            assertThat(at.get("ttft_p50_ms").get("predicted").asDouble())
                    .isEqualTo(at.get("ttft_p50_ms").get("measured").asDouble());
            assertThat(at.get("itl_p99_ms").get("predicted").asDouble())
                    .isEqualTo(at.get("itl_p99_ms").get("measured").asDouble());
            assertThat(b.resolve("twins").resolve(s.get("cell").asText() + ".json"))
                    .exists();
            // the live search started at the prediction (written first), not at capacity.start
            assertThat(p.get("search_started_at").asDouble())
                    .isEqualTo(Bracket.round(p.get("capacity").asDouble(), Bracket.digits(0.05)));
        }
        // the prediction was logged before the first probe ran
        assertThat(log.toString()).contains("predicts a capacity of");
        // the cache's capacity gain lowers the cost of a token served within the SLO
        JsonNode local = cap.get("summary").get(1);
        double gain = local.get("vs_baseline").get("ratio").get("mean").asDouble();
        assertThat(local.get("cost_vs_baseline").get("mean").asDouble()).isLessThan(1);
        // the cost's interval is made as the gain's (blocked by seed), and says so
        assertThat(local.get("cost_vs_baseline").get("interval"))
                .isEqualTo(local.get("vs_baseline").get("ratio").get("interval"));
        assertThat(local.get("cost_vs_baseline").get("df"))
                .isEqualTo(local.get("vs_baseline").get("ratio").get("df"));
        assertThat(gain).isGreaterThan(1);
        assertThat(cap.get("summary")
                        .get(0)
                        .get("cost_per_m_output_tokens")
                        .get("mean")
                        .asDouble())
                .isPositive();
        String html = Files.readString(b.resolve("report.html"));
        assertThat(html).contains("Predicted vs measured capacity").contains("Cost at the SLO");
        StringWriter text = new StringWriter();
        CapacityText.print(new PrintWriter(text), cap);
        assertThat(text.toString())
                .contains("predicted (error)")
                .contains("(+0%)")
                .contains("cost/1M tok");
    }

    @Test
    void anEngineSlowerThanItsCalibrationIsPredictedTooHighWithTheCauseNamed(@TempDir Path t) throws Exception {
        Path b = run(t, "2", "predict: true", new StringWriter());
        JsonNode cap = JSON.readTree(b.resolve("capacity.json").toFile());
        JsonNode p = cap.get("summary").get(0).get("predicted");
        assertThat(p.get("error").asDouble()).isGreaterThan(0.2);
        assertThat(p.get("within_tolerance").asBoolean()).isFalse();
        assertThat(p.get("cause").asText()).contains("optimistic");
        // searched again at the speed the engine ran (twice the calibration's step price), the twin finds the engine's
        // capacity: the miss is the machine's speed, and the cause says so
        JsonNode speed = p.get("at_engine_speed");
        assertThat(speed.get("engine_step_time_over_twin").asDouble()).isEqualTo(2.0);
        assertThat(Math.abs(speed.get("error").asDouble())).isLessThanOrEqualTo(0.05);
        assertThat(p.get("cause").asText()).contains("the miss is the machine's speed, not the model");
        String html = Files.readString(b.resolve("report.html"));
        assertThat(html).contains("twin at the engine&#39;s speed (error)");
        assertThat(p.get("at_measured_capacity")
                        .get("ttft_p50_ms")
                        .get("predicted")
                        .asDouble())
                .isLessThan(p.get("at_measured_capacity")
                        .get("ttft_p50_ms")
                        .get("measured")
                        .asDouble());
    }

    /** An engine faster than its calibration (the machine sped up): the twin at its speed finds its capacity too. */
    @Test
    void anEngineFasterThanItsCalibrationIsFoundByTheTwinAtItsSpeed(@TempDir Path t) throws Exception {
        Path b = run(t, "0.5", "predict: true", new StringWriter());
        JsonNode p = JSON.readTree(b.resolve("capacity.json").toFile())
                .get("summary")
                .get(0)
                .get("predicted");
        assertThat(p.get("error").asDouble()).isLessThan(-0.2);
        JsonNode speed = p.get("at_engine_speed");
        assertThat(speed.get("engine_step_time_over_twin").asDouble()).isEqualTo(0.5);
        assertThat(Math.abs(speed.get("error").asDouble())).isLessThanOrEqualTo(0.05);
        assertThat(p.get("cause").asText()).contains("pessimistic").contains("the machine's speed, not the model");
    }

    @Test
    void predictFalseTurnsItOff(@TempDir Path t) throws Exception {
        Path b = run(t, "1", "predict: false", new StringWriter());
        JsonNode cap = JSON.readTree(b.resolve("capacity.json").toFile());
        for (JsonNode s : cap.get("summary")) assertThat(s.has("predicted")).isFalse();
        assertThat(b.resolve("twins")).doesNotExist();
    }
}
