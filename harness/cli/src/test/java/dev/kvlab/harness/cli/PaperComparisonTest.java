package dev.kvlab.harness.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A matrix with named levels and a paper block: cell ids, summary columns and the report's "Compared with the paper". */
class PaperComparisonTest {

    @TempDir
    Path dir;

    @Test
    void theReportPutsThePapersFiguresNextToTheRun() throws Exception {
        Path f = dir.resolve("m.yaml");
        Files.writeString(f, """
                cluster:
                  instances: 2
                store:
                  nodes: 2
                  capacity: 2Mtok
                workload:
                  generator: {kind: chat, users: 4, rounds: 3, system_prompt_tokens: 1024, context_tokens: 512, question_tokens: 64, answer_tokens: 16}
                  arrival: {process: poisson, rate: 2}
                factors:
                  system:
                    plain: {tiers: none, cluster.router: random}
                    cached: {tiers: combined, cluster.router: kv-centric}
                paper:
                  source: "a made-up paper"
                  differences: "everything"
                  figures:
                    - {label: "mean TTFT, plain", figure: "Fig. 1", metric: ttft_mean_ms, cell: {system: plain}, value: 100, unit: ms}
                    - {label: "hits, cached over plain", figure: "Fig. 2", metric: "local_hit_ratio + remote_hit_ratio", cell: {system: cached},
                       over: {system: plain}, as: gain, value: 2}
                """);
        Cli c = Cli.run("run", f.toString(), "--out", dir.resolve("runs").toString());
        assertThat(c.exit()).as(c.err()).isZero();
        String[] lines = c.out().strip().split("\n");
        Path bundle = Path.of(lines[lines.length - 1]);
        JsonNode s = new ObjectMapper().readTree(bundle.resolve("summary.json").toFile());
        assertThat(s.at("/cells/0/cell").asText()).isEqualTo("c01-plain");
        assertThat(s.at("/cells/1/factors/system").asText()).isEqualTo("cached");
        double mean = s.at("/cells/0/metrics/ttft_mean_ms/mean").asDouble();
        assertThat(mean).isPositive();
        String html = Files.readString(bundle.resolve("report.html"));
        assertThat(html)
                .contains("Compared with the paper")
                .contains("a made-up paper")
                .contains("mean TTFT, plain");
        // the kvlab value is this run's mean TTFT, and the ratio is kvlab / paper
        assertThat(html).contains(String.format(Locale.ROOT, "%.2f", mean / 100));
        // a hit ratio over zero hits is no number: shown as a dash, not as infinity
        assertThat(html).doesNotContain("Infinity");
        assertThat(Files.readString(bundle.resolve("summary.csv"))
                        .lines()
                        .findFirst()
                        .orElseThrow())
                .contains("ttft_mean_ms")
                .contains("system");
    }

    @Test
    void aCapacityFigureComparesTheSearchesNotTheProbes() throws Exception {
        Path f = dir.resolve("c.yaml");
        Files.writeString(f, """
                cluster:
                  instances: 2
                store:
                  nodes: 2
                  capacity: 2Mtok
                workload:
                  generator: {kind: chat, users: 8, rounds: 3, system_prompt_tokens: 1024, context_tokens: 512, question_tokens: 64, answer_tokens: 16}
                  arrival: {process: poisson, rate: 2}
                slo: {ttft_ms: 300}
                factors:
                  system:
                    plain: {tiers: none}
                    cached: {tiers: combined}
                capacity: {knob: workload.arrival.rate, start: 2, max_probes: 5, precision: 0.3}
                paper:
                  figures:
                    - {label: "capacity gain", figure: "Fig. 1", metric: capacity, cell: {system: cached}, over: {system: plain}, as: gain, value: 1}
                """);
        Cli c = Cli.run("run", f.toString(), "--out", dir.resolve("runs").toString());
        assertThat(c.exit()).as(c.err()).isZero();
        String[] lines = c.out().strip().split("\n");
        Path bundle = Path.of(lines[lines.length - 1]);
        JsonNode cap =
                new ObjectMapper().readTree(bundle.resolve("capacity.json").toFile());
        double plain = Double.NaN, cached = Double.NaN;
        for (JsonNode x : cap.get("cells")) {
            if (x.at("/factors/system").asText().equals("plain"))
                plain = x.get("capacity").asDouble();
            else cached = x.get("capacity").asDouble();
        }
        String html = Files.readString(bundle.resolve("report.html"));
        assertThat(html).contains("Compared with the paper").contains("c02-cached / c01-plain");
        assertThat(html).contains(String.format(Locale.ROOT, "%+.0f%%", 100 * (cached / plain - 1)));
    }
}
