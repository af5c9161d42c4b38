package dev.kvlab.harness.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.report.BundleData;
import dev.kvlab.harness.report.PaperComparison;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26: a paper figure naming a column no summary row has is refused when the file is read (exit 2, FILE:LINE,
 * the known columns listed); a valid column on cells a capacity search varied is reported at capacity, and says so.
 */
class PaperMetricsTest {

    @TempDir
    Path dir;

    static final String MATRIX = """
            name: paper-cap
            mode: sim
            seed: 3
            model: qwen2.5-0.5b
            hardware: h100
            cluster: {instances: 2}
            store: {nodes: 2, capacity: 256MiB}
            link: 4x200gbps
            workload:
              generator: {kind: shared-prefix, groups: 4, prompts_per_group: 5, prefix_tokens: 1024, suffix_tokens: 64, output_tokens: 16}
              arrival: {process: poisson, rate: 24}
            slo: {ttft_ms: 200, tpot_ms: 50}
            factors:
              tiers: [local-only, combined]
            """;

    static final String PAPER = """
            paper:
              source: "a check"
              figures:
                - {label: "hits", figure: "Fig. 1", metric: METRIC, cell: {tiers: combined}, value: 1}
            """;

    Cli run(String yaml, String... extra) throws Exception {
        Path f = dir.resolve("m.yaml");
        Files.writeString(f, yaml);
        List<String> args = new java.util.ArrayList<>(
                List.of("run", f.toString(), "--out", dir.resolve("runs").toString()));
        args.addAll(List.of(extra));
        return Cli.run(args.toArray(String[]::new));
    }

    @Test
    void aFigureNamingAnUnknownColumnIsRefusedWhenTheFileIsRead() throws Exception {
        for (String metric : List.of(
                "ttft_p51_ms",
                "\"local_hit_ratio + bogus_ratio\"",
                "\"capacity + goodput_rps\"",
                "\"ttft_p50_ms +\"")) {
            Cli c = run(MATRIX + PAPER.replace("METRIC", metric));
            assertThat(c.exit()).as(metric + ": " + c.err()).isEqualTo(2);
            assertThat(c.err())
                    .contains("m.yaml:")
                    .contains("paper.figures[0].metric")
                    .contains("ttft_p99_ms");
            assertThat(
                            Files.exists(dir.resolve("runs"))
                                    ? Files.list(dir.resolve("runs")).toList()
                                    : List.of())
                    .isEmpty();
        }
        assertThat(run(MATRIX + PAPER.replace("METRIC", "ttft_p51_ms")).err()).contains("'ttft_p51_ms'");
    }

    @Test
    void aSummaryColumnOnSearchedCellsIsReportedAtCapacity() throws Exception {
        Cli c = run(MATRIX + PAPER.replace("METRIC", "\"local_hit_ratio + remote_hit_ratio\"")
                + "capacity: {knob: workload.arrival.rate, start: 4, max_probes: 3}\n");
        assertThat(c.exit()).as(c.err()).isZero();
        String[] lines = c.out().strip().split("\n");
        Path bundle = Path.of(lines[lines.length - 1]);
        JsonNode manifest =
                new ObjectMapper().readTree(bundle.resolve("manifest.json").toFile());
        List<PaperComparison.Row> rows = PaperComparison.rows(BundleData.read(bundle, manifest));
        assertThat(rows).hasSize(1);
        PaperComparison.Row r = rows.get(0);
        assertThat(r.kvlab()).as(r.toString()).isFinite().isPositive();
        assertThat(r.cells()).contains("@").contains("(at capacity)");
        // the value is the sum in the run at capacity (capacity.json names it)
        JsonNode entry = null;
        for (JsonNode e : new ObjectMapper()
                .readTree(bundle.resolve("capacity.json").toFile())
                .get("cells")) if (e.at("/factors/tiers").asText().equals("combined")) entry = e;
        assertThat(r.cells()).contains(entry.get("capacity_run").asText());
        assertThat(r.kvlab())
                .isCloseTo(
                        entry.get("local_hit_ratio").asDouble()
                                + entry.get("remote_hit_ratio").asDouble(),
                        org.assertj.core.data.Offset.offset(1e-9));
        assertThat(Files.readString(bundle.resolve("report.html")))
                .contains("(at capacity)")
                .doesNotContain("(not run)");
    }
}
