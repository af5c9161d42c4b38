package dev.kvlab.harness.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.cli.Kvlab;
import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.IntervalHistogram;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.bundle.HlogFile;
import dev.kvlab.harness.testsupport.LlamaServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvlab run --shard K/N --split requests} against a real engine (llama-server on a synthesized model): two
 * shards each send every other request of the one cell, and {@code kvlab merge} adds them into one cell whose counts
 * are the shards' sums, whose TTFT histogram holds every completed request, and whose bundle says it was driven from
 * two hosts; a missing shard, a shard given twice and a shard of another seed are refused with exit 2.
 */
class RequestSplitMergeTest {

    @TempDir
    static Path dir;

    static Path model;

    @BeforeAll
    static void model() throws Exception {
        LlamaServer.binary();
        model = Gguf.synth(new SynthSpec(4, 256, 8, 2, 688, 32000, WeightType.F16, 7, 4096), dir.resolve("small.gguf"))
                .path();
    }

    private static String last(String out) {
        return out.lines().filter(x -> !x.isBlank()).toList().getLast();
    }

    private static Path run(Path matrix, String out, String... more) {
        List<String> a = new ArrayList<>(
                List.of("run", matrix.toString(), "--out", dir.resolve(out).toString()));
        a.addAll(List.of(more));
        Cli c = Cli.run(a.toArray(String[]::new));
        assertThat(c.exit()).as(c.err()).isZero();
        return Path.of(last(c.out()));
    }

    private static JsonNode cell(Path bundle) throws Exception {
        try (Stream<Path> s = Files.list(bundle.resolve("cells"))) {
            return new ObjectMapper()
                    .readTree(
                            s.findFirst().orElseThrow().resolve("r0/cell.json").toFile());
        }
    }

    private static Path runDir(Path bundle) throws Exception {
        try (Stream<Path> s = Files.list(bundle.resolve("cells"))) {
            return s.findFirst().orElseThrow().resolve("r0");
        }
    }

    private static List<Long> ids(Path bundle) throws Exception {
        return Files.readAllLines(runDir(bundle).resolve("requests.csv")).stream()
                .skip(1)
                .map(l -> Long.parseLong(l.substring(0, l.indexOf(','))))
                .toList();
    }

    private static long count(Path bundle, Metric m) throws Exception {
        return HlogFile.read(m, runDir(bundle).resolve(m.id() + ".hlog")).stream()
                .mapToLong(IntervalHistogram::count)
                .sum();
    }

    @Test
    void twoRequestSplitShardsMergeIntoTheWholeCell() throws Exception {
        try (LlamaServer s = LlamaServer.start(
                model, dir, "-np", "2", "-c", "4096", "--slot-save-path", dir.toString(), "--cache-ram", "0")) {
            Path m = dir.resolve("split.yaml");
            Files.writeString(m, """
                    name: split
                    mode: live
                    seed: 3
                    target: {kind: openai, endpoints: [%s], model: default, extra_body: {cache_prompt: true}}
                    cache_state: cold
                    workload:
                      generator: {kind: shared-prefix, groups: 2, prompts_per_group: 4, prefix_tokens: 256, suffix_tokens: 16, output_tokens: 6}
                      arrival: {process: constant, rate: 8}
                    slo: {ttft_ms: 2000}
                    measurement: {interval: 1s}
                    """.formatted(s.url()));
            Path s1 = run(m, "s1", "--shard", "1/2", "--split", "requests");
            Path s2 = run(m, "s2", "--shard", "2/2", "--split", "requests");
            Cli v = Cli.run("verify", s2.toString());
            assertThat(v.exit()).as(v.out() + v.err()).isZero();
            assertThat(v.out()).contains("a shard: 2/2").contains("split by requests");
            JsonNode c1 = cell(s1), c2 = cell(s2);
            assertThat(ids(s1)).hasSize(4).allMatch(i -> i % 2 == 0);
            assertThat(ids(s2)).hasSize(4).allMatch(i -> i % 2 == 1);
            assertThat(c1.path("config").path("target").path("request_shard").asText())
                    .isEqualTo("1/2");
            assertThat(c1.path("summary").path("cache_state_verification").asText())
                    .startsWith("verified");
            assertThat(c2.path("summary").path("cache_state_protocol").asText()).startsWith("left to shard 1/2");

            Cli merge = Cli.run(
                    "merge",
                    s2.toString(),
                    s1.toString(),
                    "--out",
                    dir.resolve("merged").toString());
            assertThat(merge.exit()).as(merge.err()).isZero();
            Path mb = Path.of(last(merge.out()));
            Cli vm = Cli.run("verify", mb.toString());
            assertThat(vm.exit()).as(vm.out() + vm.err()).isZero();
            JsonNode cm = cell(mb), sm = cm.path("summary");
            for (String k : List.of(
                    "requests",
                    "completed",
                    "failed",
                    "engine_prompt_tokens",
                    "engine_cached_prompt_tokens",
                    "workload_prompt_tokens"))
                assertThat(sm.path(k).asDouble())
                        .as(k)
                        .isEqualTo(c1.path("summary").path(k).asDouble()
                                + c2.path("summary").path(k).asDouble());
            assertThat(sm.path("requests").asLong()).isEqualTo(8);
            assertThat(count(mb, Metric.TTFT))
                    .isEqualTo(sm.path("completed").asLong())
                    .isEqualTo(count(s1, Metric.TTFT) + count(s2, Metric.TTFT));
            assertThat(ids(mb)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
            assertThat(sm.path("driven_from_hosts").asInt()).isEqualTo(2);
            long
                    started1 =
                            c1.path("summary")
                                    .path("measured_phase_started_epoch_ms")
                                    .asLong(),
                    started2 =
                            c2.path("summary")
                                    .path("measured_phase_started_epoch_ms")
                                    .asLong();
            assertThat(started2)
                    .as("shard 2 ran after shard 1")
                    .isGreaterThan(started1)
                    .isGreaterThan(0);
            assertThat(sm.path("shard_start_skew_s").asDouble()).isEqualTo((started2 - started1) / 1000.0);
            System.err.printf(
                    "request split, merged: requests %d completed %d ttft p50 %.1f ms p99 %.1f ms goodput %.2f rps engine cached %s;"
                            + " shard start skew %.1f s%n",
                    sm.path("requests").asLong(),
                    sm.path("completed").asLong(),
                    sm.path("ttft_p50_ms").asDouble(),
                    sm.path("ttft_p99_ms").asDouble(),
                    sm.path("goodput_rps").asDouble(),
                    sm.path("engine_cached_prompt_tokens"),
                    sm.path("shard_start_skew_s").asDouble());

            // shards that do not add up to the cells: exit 2, nothing written
            Path bad = dir.resolve("bad");
            Cli missing = Cli.run("merge", s1.toString(), "--out", bad.toString());
            assertThat(missing.exit()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
            assertThat(missing.err()).contains("missing shard(s) 2/2");
            Cli twice = Cli.run("merge", s1.toString(), s1.toString(), "--out", bad.toString());
            assertThat(twice.exit()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
            assertThat(twice.err()).contains("given twice");
            Path other = run(m, "o", "--shard", "2/2", "--split", "requests", "--set", "seed=4");
            Cli mixed = Cli.run("merge", s1.toString(), other.toString(), "--out", bad.toString());
            assertThat(mixed.exit()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
            assertThat(mixed.err()).contains("another matrix");
            if (Files.exists(bad))
                try (Stream<Path> l = Files.list(bad)) {
                    assertThat(l.toList())
                            .as("nothing written by refused merges")
                            .isEmpty();
                }
        }
    }
}
