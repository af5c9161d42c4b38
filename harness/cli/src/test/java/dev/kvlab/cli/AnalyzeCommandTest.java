package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.workloads.MooncakeTrace;
import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.LruCapacity;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.WorkloadSpec;
import dev.kvlab.workloads.testing.SharedTrace;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AnalyzeCommandTest {

    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        var cl = Kvlab.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    static JsonNode json(Run r) throws Exception {
        assertThat(r.code()).as(r.err()).isZero();
        return new ObjectMapper().readTree(r.out());
    }

    @Test
    void conversationTraceReferenceFigures() throws Exception {
        Path trace = SharedTrace.conversation();
        JsonNode d =
                json(run("analyze", trace.toString(), "--block-tokens", "512", "--capacities", "1%,0.10", "--json"));
        assertThat(d.get("requests").asLong()).isEqualTo(12_031);
        assertThat(d.get("total_blocks").asLong()).isEqualTo(288_500);
        assertThat(d.get("distinct_blocks").asLong()).isEqualTo(182_790);
        assertThat(d.at("/span_ms/last").asLong()).isEqualTo(3_536_999);
        assertThat(d.at("/input_tokens/total").asLong()).isEqualTo(144_793_823L);
        assertThat(d.at("/output_tokens/total").asLong()).isEqualTo(4_122_048L);
        assertThat(d.at("/ideal/hit_blocks").asLong()).isEqualTo(105_710);
        assertThat(d.at("/ideal/token_hit_ratio").asDouble()).isBetween(0.3736237485, 0.3736237495);
        assertThat(d.at("/lru/0/capacity_fraction").asDouble()).isEqualTo(0.01);
        assertThat(d.at("/lru/0/capacity_blocks").asLong()).isEqualTo(1_827);
        assertThat(d.at("/lru/0/hit_blocks").asLong()).isEqualTo(15_080);
        assertThat(d.at("/lru/1/capacity_fraction").asDouble()).isEqualTo(0.1);
        assertThat(d.at("/lru/1/capacity_blocks").asLong()).isEqualTo(18_279);
        assertThat(d.at("/lru/1/hit_blocks").asLong()).isEqualTo(80_323);
        assertThat(d.at("/lru/1/token_hit_ratio").asDouble()).isBetween(0.2838868685, 0.2838868695);
        assertThat(d.at("/reuse_distance/cold").asLong()).isEqualTo(182_790);
    }

    @Test
    void tableAndChart(@TempDir Path dir) throws Exception {
        Path t = dir.resolve("t.jsonl");
        Files.writeString(t, """
                {"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}
                {"timestamp": 10, "input_length": 700, "output_length": 5, "hash_ids": [1, 3]}
                """);
        Run r = run("analyze", t.toString(), "--capacities", "50%,100%", "--chart");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("requests       2")
                .contains("ideal (inf)")
                .contains("LRU 50%")
                .contains("LRU 100%")
                .contains("miss-ratio curve");
        Run plain = run("analyze", t.toString());
        assertThat(plain.out()).contains("LRU 1%").contains("LRU 50%").doesNotContain("miss-ratio curve");
    }

    @Test
    void badLinesExitTwoNamingFileAndLine(@TempDir Path dir) throws Exception {
        Path t = dir.resolve("bad.jsonl");
        Files.writeString(t, """
                {"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}
                {"timestamp": 10, "input_length": 100, "output_length": 5, "hash_ids": [3]}
                {"timestamp": 20, "input_length": "many", "output_length": 5, "hash_ids": [4]}
                """);
        Run r = run("analyze", t.toString(), "--json");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains(t + ":3: field 'input_length' must be an integer");
        assertThat(r.out()).isEmpty();
        Path s = dir.resolve("short.jsonl");
        Files.writeString(s, "{\"timestamp\": 0, \"input_length\": 1600, \"output_length\": 5, \"hash_ids\": [1]}\n");
        Run r2 = run("analyze", s.toString(), "--json");
        assertThat(r2.code()).isEqualTo(2);
        assertThat(r2.err()).contains(s + ":1: hash_ids has 1 ids, but input_length 1600 needs ceil(1600 / 512) = 4");
        Run missing = run("analyze", dir.resolve("nope.jsonl").toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).contains("nope.jsonl: no such file");
    }

    @Test
    void badOptionsExitTwo(@TempDir Path dir) throws Exception {
        Path t = dir.resolve("t.jsonl");
        Files.writeString(t, "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [1, 2]}\n");
        assertThat(run("analyze", t.toString(), "--capacities", "lots").code()).isEqualTo(2);
        assertThat(run("analyze", t.toString(), "--capacities", "150%").code()).isEqualTo(2);
        assertThat(run("analyze", t.toString(), "--capacities", "-0.1").code()).isEqualTo(2);
        assertThat(run("analyze", t.toString(), "--block-tokens", "0").code()).isEqualTo(2);
        assertThat(run("analyze").code()).isEqualTo(2);
    }

    @Test
    void percentCapacitiesAreExactDecimals() {
        var c = new AnalyzeCommand.CapacityConverter();
        assertThat(c.convert("1%")).isEqualTo(new LruCapacity.Fraction(0.01));
        assertThat(c.convert("7%")).isEqualTo(new LruCapacity.Fraction(0.07));
        assertThat(c.convert("0.1%")).isEqualTo(new LruCapacity.Fraction(0.001));
        assertThat(c.convert("12.5 %")).isEqualTo(new LruCapacity.Fraction(0.125));
        assertThat(c.convert("0.3")).isEqualTo(new LruCapacity.Fraction(0.3));
        assertThat(c.convert("3Mtok")).isEqualTo(new LruCapacity.Tokens(3_000_000));
        assertThat(c.convert("1.5Ktok")).isEqualTo(new LruCapacity.Tokens(1_500));
        assertThat(c.convert("700 tokens")).isEqualTo(new LruCapacity.Tokens(700));
    }

    @Test
    void tokenCapacitiesAreWholeBlocks(@TempDir Path dir) throws Exception {
        // blocks of 512 tokens: 1,2 | 1,2,3 | 1,2,3 ; 1100 tokens = 2 blocks (floor), 2Ktok = 3 blocks
        Path t = dir.resolve("t.jsonl");
        Files.writeString(
                t,
                "{\"timestamp\": 0, \"input_length\": 1000, \"output_length\": 5, \"hash_ids\": [1, 2]}\n"
                        + "{\"timestamp\": 1, \"input_length\": 1500, \"output_length\": 5, \"hash_ids\": [1, 2, 3]}\n"
                        + "{\"timestamp\": 2, \"input_length\": 1500, \"output_length\": 5, \"hash_ids\": [1, 2, 3]}\n");
        JsonNode d = json(run("analyze", t.toString(), "--capacities", "1100tok,2Ktok,50%", "--json"));
        assertThat(d.at("/lru/0/capacity_tokens").asLong()).isEqualTo(1100);
        assertThat(d.at("/lru/0/capacity_blocks").asLong()).isEqualTo(2);
        // 2 blocks: request 2 walks 1,2,3 and leaves [2,3]: request 3 finds 1 absent -> 0 hits; request 2 hit 1,2
        assertThat(d.at("/lru/0/hit_blocks").asLong()).isEqualTo(2);
        assertThat(d.at("/lru/1/capacity_blocks").asLong()).isEqualTo(3);
        assertThat(d.at("/lru/1/hit_blocks").asLong()).isEqualTo(2 + 3);
        // a fraction reports the tokens its blocks hold: floor(0.5 * 3) = 1 block = 512 tokens
        assertThat(d.at("/lru/2/capacity_blocks").asLong()).isEqualTo(1);
        assertThat(d.at("/lru/2/capacity_tokens").asLong()).isEqualTo(512);
        assertThat(run("analyze", t.toString(), "--capacities", "3Xtok").code()).isEqualTo(2);
        assertThat(run("analyze", t.toString(), "--capacities", "0.5tok").code())
                .isEqualTo(2);
    }

    @Test
    void analysesGeneratorOutput(@TempDir Path dir) throws Exception {
        // long-document QA, tile vs interleave: the same documents, a cache smaller than the working set
        JsonNode tile = analyseDocQa(dir, "tile");
        JsonNode interleave = analyseDocQa(dir, "interleave");
        assertThat(tile.at("/ideal/hit_blocks").asLong())
                .isEqualTo(interleave.at("/ideal/hit_blocks").asLong())
                .isPositive();
        assertThat(tile.at("/lru/0/hit_blocks").asLong())
                .isLessThan(interleave.at("/lru/0/hit_blocks").asLong());
        assertThat(tile.get("block_tokens").asInt()).isEqualTo(256);
    }

    private static JsonNode analyseDocQa(Path dir, String order) throws Exception {
        Path f = dir.resolve(order + ".jsonl");
        try (RequestSource s = Workloads.open(
                        new WorkloadSpec.DocQa(16, 4096, 3, 50, 10, order, 256),
                        ArrivalSpec.poisson(5),
                        Namespace.of("m"),
                        1);
                OutputStream o = Files.newOutputStream(f)) {
            MooncakeTrace.write(s, o);
        }
        return json(run("analyze", f.toString(), "--capacities", "20%", "--json"));
    }
}
