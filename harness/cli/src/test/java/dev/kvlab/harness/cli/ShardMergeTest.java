package dev.kvlab.harness.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.cli.Kvlab;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.Shard;
import dev.kvlab.harness.experiments.internal.matrix.MatrixParser;
import dev.kvlab.harness.testsupport.TestMatrices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvlab run --shard K/N} and {@code kvlab merge}: the shards partition the runs, each is a bundle verify accepts
 * as a shard, merging all of them gives the unsharded summary row for row (sim), and shards that do not fit together
 * are refused with exit 2 and nothing written.
 */
class ShardMergeTest {

    @TempDir
    Path dir;

    private static String last(String out) {
        List<String> l = out.lines().filter(x -> !x.isBlank()).toList();
        return l.getLast();
    }

    private static Map<String, JsonNode> rows(Path bundle) throws Exception {
        JsonNode s = new ObjectMapper().readTree(bundle.resolve("summary.json").toFile());
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode r : s.get("rows")) {
            ObjectNode c = r.deepCopy();
            List<String> wall = new ArrayList<>();
            c.fieldNames().forEachRemaining(f -> {
                if (f.contains("wall")) wall.add(f);
            });
            c.remove(wall);
            out.put(r.get("cell").asText() + "/" + r.get("replicate").asInt(), c);
        }
        return out;
    }

    @Test
    void shardsPartitionTheRunsRoundRobin() throws Exception {
        MatrixSpec whole = MatrixParser.load(TestMatrices.write(dir, "m.yaml", TestMatrices.SMALL), List.of(), null);
        int runs = whole.runs().size();
        Set<String> seen = new HashSet<>();
        for (int k = 1; k <= 3; k++) {
            MatrixSpec s = Shard.parse(k + "/3").select(whole);
            assertThat(s.sha256()).isNotEqualTo(whole.sha256()).isEqualTo(new Shard(k, 3).sha256Of(whole.sha256()));
            for (var r : s.runs())
                assertThat(seen.add(r.label()))
                        .as("run " + r.label() + " in one shard only")
                        .isTrue();
            assertThat(s.runs().size()).isBetween(runs / 3, runs / 3 + 1);
        }
        assertThat(seen).hasSize(runs);
        assertThat(Shard.parse("1/1").select(whole).runs()).isEqualTo(whole.runs());
    }

    @Test
    void mergedShardsGiveTheUnshardedSummary() throws Exception {
        Path m = TestMatrices.write(dir, "m.yaml", TestMatrices.SMALL);
        Cli full = Cli.run("run", m.toString(), "--out", dir.resolve("full").toString());
        assertThat(full.exit()).as(full.err()).isZero();
        List<String> shards = new ArrayList<>();
        for (int k = 1; k <= 3; k++) {
            Cli s = Cli.run(
                    "run",
                    m.toString(),
                    "--shard",
                    k + "/3",
                    "--out",
                    dir.resolve("s" + k).toString());
            assertThat(s.exit()).as(s.err()).isZero();
            shards.add(last(s.out()));
            Cli v = Cli.run("verify", last(s.out()));
            assertThat(v.exit()).as(v.out() + v.err()).isZero();
            assertThat(v.out()).contains("a shard: " + k + "/3");
        }
        // in another order than the shards' own: the merged bundle is in matrix order
        Cli merged = Cli.run(
                "merge",
                shards.get(2),
                shards.get(0),
                shards.get(1),
                "--out",
                dir.resolve("merged").toString());
        assertThat(merged.exit()).as(merged.err()).isZero();
        Path mb = Path.of(last(merged.out()));
        assertThat(Cli.run("verify", mb.toString()).exit()).isZero();
        assertThat(rows(mb)).isEqualTo(rows(Path.of(last(full.out()))));
        assertThat(new ObjectMapper()
                        .readTree(mb.resolve("manifest.json").toFile())
                        .get("merged_from"))
                .hasSize(3);
        assertThat(new ObjectMapper()
                        .readTree(mb.resolve("manifest.json").toFile())
                        .has("shard"))
                .isFalse();
        assertThat(Files.readAllLines(mb.resolve("summary.csv")).getFirst())
                .isEqualTo(Files.readAllLines(Path.of(last(full.out())).resolve("summary.csv"))
                        .getFirst());

        // shards that do not fit: exit 2, nothing written
        Path bad = dir.resolve("bad");
        Cli missing = Cli.run("merge", shards.get(0), shards.get(1), "--out", bad.toString());
        assertThat(missing.exit()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(missing.err()).contains("missing").contains("shard(s) 3/3");
        Cli twice = Cli.run("merge", shards.get(0), shards.get(0), shards.get(1), "--out", bad.toString());
        assertThat(twice.exit()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(twice.err()).contains("given twice");
        Cli notShard = Cli.run("merge", last(full.out()), "--out", bad.toString());
        assertThat(notShard.exit()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(notShard.err()).contains("not a shard");
        Path other = TestMatrices.write(dir, "o.yaml", TestMatrices.SMALL.replace("rate: 2", "rate: 3"));
        Cli o = Cli.run(
                "run",
                other.toString(),
                "--shard",
                "3/3",
                "--out",
                dir.resolve("o").toString());
        assertThat(o.exit()).isZero();
        Cli mixed = Cli.run("merge", shards.get(0), shards.get(1), last(o.out()), "--out", bad.toString());
        assertThat(mixed.exit()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(mixed.err()).contains("another matrix");
        if (Files.exists(bad))
            try (Stream<Path> l = Files.list(bad)) {
                assertThat(l.toList()).as("nothing written by refused merges").isEmpty();
            }
    }

    static final String SEARCH = """
            name: search
            mode: sim
            model: llama-3-8b
            hardware: h100
            cluster: {instances: 1}
            workload:
              generator: {kind: shared-prefix, groups: 4, prompts_per_group: 4, prefix_tokens: 1024, suffix_tokens: 128, output_tokens: 8}
              arrival: {process: poisson, rate: 4}
            slo: {ttft_ms: 150}
            factors:
              tiers: [none, local-only]
            replicates: 2
            baseline: {tiers: none}
            capacity: {knob: workload.arrival.rate, start: 4, min: 0.5, max: 256, target_attainment: 0.9, precision: 0.25, max_probes: 6}
            """;

    @Test
    void aCapacitySearchIsShardedByWholeSearchesAndMergesToTheSameCapacities() throws Exception {
        Path m = TestMatrices.write(dir, "c.yaml", SEARCH);
        Cli full = Cli.run("run", m.toString(), "--out", dir.resolve("full").toString());
        assertThat(full.exit()).as(full.err()).isZero();
        List<String> shards = new ArrayList<>();
        for (int k = 1; k <= 2; k++) {
            Cli s = Cli.run(
                    "run",
                    m.toString(),
                    "--shard",
                    k + "/2",
                    "--out",
                    dir.resolve("s" + k).toString());
            assertThat(s.exit()).as(s.err()).isZero();
            shards.add(last(s.out()));
            Cli v = Cli.run("verify", last(s.out()));
            assertThat(v.exit()).as(v.out() + v.err()).isZero();
        }
        // each search (cell x replicate) ran in one shard only, with all its probes
        Set<String> probed = new HashSet<>();
        for (String sh : shards)
            for (JsonNode c : new ObjectMapper()
                    .readTree(Path.of(sh, "manifest.json").toFile())
                    .get("cells"))
                for (JsonNode r : c.get("replicates"))
                    probed.add(c.get("cell").asText() + "/" + r.get("replicate").asInt());
        assertThat(probed).isEqualTo(rows(Path.of(last(full.out()))).keySet());
        Cli merged = Cli.run(
                "merge",
                shards.get(1),
                shards.get(0),
                "--out",
                dir.resolve("merged").toString());
        assertThat(merged.exit()).as(merged.err()).isZero();
        Path mb = Path.of(last(merged.out()));
        assertThat(Cli.run("verify", mb.toString()).exit()).isZero();
        assertThat(rows(mb)).isEqualTo(rows(Path.of(last(full.out()))));
        assertThat(capacities(mb))
                .isEqualTo(capacities(Path.of(last(full.out()))))
                .isNotEmpty();
    }

    private static List<String> capacities(Path bundle) throws Exception {
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(bundle.resolve("capacity.csv"))) {
            List<String> keep = new ArrayList<>();
            String[] f = line.split(",", -1);
            String[] h = Files.readAllLines(bundle.resolve("capacity.csv"))
                    .getFirst()
                    .split(",", -1);
            for (int i = 0; i < f.length && i < h.length; i++) if (!h[i].contains("wall")) keep.add(f[i]);
            out.add(String.join(",", keep));
        }
        return out;
    }

    /** A search that may add replicates decides from all of a cell's replicates, which no shard holds: refused, nothing run. */
    @Test
    void aSearchThatAddsReplicatesIsNotSharded() throws Exception {
        Path m = TestMatrices.write(
                dir, "c.yaml", SEARCH.replace("max_probes: 6}", "max_probes: 6, max_replicates: 4}"));
        Cli c = Cli.run(
                "run", m.toString(), "--shard", "1/2", "--out", dir.resolve("x").toString());
        assertThat(c.exit()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(c.err()).contains("--shard 1/2").contains("capacity.max_replicates");
        assertThat(Files.exists(dir.resolve("x"))).isFalse();
        Path same = TestMatrices.write(
                dir, "d.yaml", SEARCH.replace("max_probes: 6}", "max_probes: 6, max_replicates: 2}"));
        Cli ok = Cli.run(
                "run",
                same.toString(),
                "--shard",
                "1/2",
                "--out",
                dir.resolve("y").toString());
        assertThat(ok.exit()).as(ok.err()).isZero();
    }

    @Test
    void badShardArgumentsAreBadInput() throws Exception {
        Path m = TestMatrices.write(dir, "m.yaml", TestMatrices.SMALL);
        for (String s : List.of("0/2", "3/2", "1-2", "a/b", "1/0")) {
            Cli c = Cli.run(
                    "run", m.toString(), "--shard", s, "--out", dir.resolve("x").toString());
            assertThat(c.exit()).as(s).isEqualTo(Kvlab.EXIT_BAD_INPUT);
            assertThat(c.err()).contains("--shard");
        }
        Cli tooMany = Cli.run(
                "run", m.toString(), "--shard", "9/9", "--out", dir.resolve("x").toString());
        assertThat(tooMany.exit()).isEqualTo(Kvlab.EXIT_BAD_INPUT);
        assertThat(tooMany.err()).contains("has only 8 runs");
        assertThat(Files.exists(dir.resolve("x"))).isFalse();
    }
}
