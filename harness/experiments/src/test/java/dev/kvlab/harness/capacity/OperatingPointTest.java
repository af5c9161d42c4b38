package dev.kvlab.harness.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.bundle.BundleVerifier;
import dev.kvlab.harness.experiments.internal.matrix.MatrixParser;
import dev.kvlab.harness.experiments.internal.matrix.MatrixRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operating points: a cell's load as a share of a searched cell's capacity, resolved after the search in the same
 * bundle (rows, manifest, capacity.json), and the bad forms refused before anything runs. Also the probes that
 * decide: an undecided sim probe runs again on a longer workload.
 */
class OperatingPointTest {

    static final String OP = """
            name: op
            mode: sim
            seed: 5
            model: qwen2.5-0.5b
            hardware: h100
            cluster: {instances: 2, router: round-robin}
            store: {backend: bundled, nodes: 2, capacity: 256MiB}
            link: 4x200gbps
            cache_state: hot
            workload:
              generator: {kind: shared-prefix, groups: 40, prompts_per_group: 10, prefix_tokens: 1024, suffix_tokens: 64, output_tokens: 16}
              arrival: {process: poisson, rate: RATE}
            slo: {ttft_ms: 200, tpot_ms: 50}
            factors:
              tiers: [none, combined]
            CAPACITY
            """;

    static final String CAP =
            "capacity: {knob: workload.arrival.rate, start: 8, min: 0.1, max: 100000, target_attainment: 0.9, precision: 0.05, cells: {tiers: none}}";

    static MatrixSpec spec(Path dir, String rate, String capacity) throws Exception {
        Path f = dir.resolve("m.yaml");
        Files.writeString(f, OP.replace("RATE", rate).replace("CAPACITY", capacity));
        return MatrixParser.load(f, java.util.List.of(), null);
    }

    @Test
    void theFixedCellsRunAtTheResolvedShareOfTheReferenceCapacity(@TempDir Path t) throws Exception {
        MatrixSpec s = spec(t, "{capacity_of: {tiers: none}, fraction: 0.8}", CAP);
        MatrixRunner.Outcome o =
                CapacitySearchTest.runner(new CellRunner()::run, null, 2).run(s, t.resolve("runs"), false);
        JsonNode cap = CapacitySearchTest.capacity(o.bundle());
        double none = cap.get("summary").get(0).get("capacity").get("mean").asDouble();
        JsonNode summary = CapacitySearchTest.JSON.readTree(
                o.bundle().resolve("summary.json").toFile());
        int combined = 0;
        for (JsonNode r : summary.get("rows")) {
            if (!r.path("tiers").asText().equals("combined")) continue;
            combined++;
            assertThat(r.get("workload.arrival.rate").asDouble())
                    .isCloseTo(0.8 * none, org.assertj.core.data.Percentage.withPercentage(0.01));
        }
        assertThat(combined).isEqualTo(1);
        String manifest = Files.readString(o.bundle().resolve("manifest.json"));
        assertThat(manifest).contains("capacity_of");
        JsonNode op = cap.get("operating_point").elements().next();
        assertThat(op.get("reference").asText()).contains("none");
        assertThat(op.get("load").asDouble())
                .isCloseTo(0.8 * none, org.assertj.core.data.Percentage.withPercentage(0.01));
        assertThat(BundleVerifier.verify(o.bundle())).isEmpty();
    }

    @Test
    void badOperatingPointsAreRefusedWithTheirLine(@TempDir Path t) {
        assertThatThrownBy(() -> spec(t, "{capacity_of: {tiers: none}, fraction: 0.8}", ""))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("m.yaml:")
                .hasMessageContaining("capacity");
        assertThatThrownBy(() -> spec(t, "{capacity_of: {tiers: local-only}, fraction: 0.8}", CAP))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("selects no searched cell");
        assertThatThrownBy(() -> spec(t, "{capacity_of: {tiers: none}, fraction: 1.5}", CAP))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("fraction");
        assertThatThrownBy(() -> spec(t, "{capacity_of: {tiers: none}, fraction: 0}", CAP))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("fraction");
        assertThatThrownBy(() -> spec(t, "{capacity_of: {}, fraction: 0.5}", CAP))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity_of");
        assertThatThrownBy(() -> spec(t, "{capacity_of: {tiers: none}, share: 0.5}", CAP))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("share");
    }

    @Test
    void anUndecidedSimProbeRunsAgainOnALongerWorkloadUntilDecidedOrCapped(@TempDir Path t) throws Exception {
        MatrixSpec s = spec(t, "8", CAP.replace("cells: {tiers: none}", "cells: {tiers: none}, max_passes: 4"));
        MatrixRunner.Outcome o =
                CapacitySearchTest.runner(new CellRunner()::run, null, 2).run(s, t.resolve("runs"), false);
        JsonNode c = CapacitySearchTest.capacity(o.bundle()).get("cells").get(0);
        int runs = 0;
        boolean extended = false;
        for (JsonNode p : c.get("probes")) {
            int passes = p.get("passes").asInt();
            runs += p.has("extended_from") ? p.get("extended_from").size() + 1 : 1;
            assertThat(passes).isLessThanOrEqualTo(p.get("max_passes").asInt());
            assertThat(p.get("max_passes").asInt()).isIn(1, 4);
            if (passes > 1) {
                extended = true;
                assertThat(p.get("run").asText()).contains("x" + passes + "/r");
                assertThat(p.get("extended_from").get(0).asInt()).isEqualTo(1);
            }
            boolean straddles = p.get("wilson").get(0).asDouble() < 0.9
                    && p.get("wilson").get(1).asDouble() > 0.9;
            assertThat(p.get("verdict").asText())
                    .isEqualTo(straddles ? "undecided" : p.get("passed").asBoolean() ? "pass" : "fail");
            if (straddles) assertThat(passes).isEqualTo(p.get("max_passes").asInt()); // undecided only at its cap
        }
        assertThat(c.get("runs_used").asInt()).isEqualTo(runs);
        assertThat(extended).as("some probe near the knee was extended: %s", c).isTrue();
        assertThat(BundleVerifier.verify(o.bundle())).isEmpty();
    }
}
