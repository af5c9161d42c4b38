package dev.kvlab.harness.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunCommandTest {

    @TempDir
    Path dir;

    private Path config(String extra) throws Exception {
        Path f = dir.resolve("cell.yaml");
        Files.writeString(f, """
                cluster:
                  instances: 2
                store:
                  nodes: 2
                  capacity: 16GiB
                workload:
                  generator: {kind: chat, users: 4, rounds: 3, system_prompt_tokens: 1024, context_tokens: 512, question_tokens: 64, answer_tokens: 16}
                  arrival: {process: poisson, rate: 2}
                """ + extra);
        return f;
    }

    @Test
    void printsOneJsonObjectWithTheSummaryFields() throws Exception {
        Cli c = Cli.run("run", config("").toString(), "--set", "seed=3", "--json", "--out", out());
        assertThat(c.exit()).as(c.err()).isZero();
        JsonNode j = c.json();
        for (String k : new String[] {
            "requests",
            "completed",
            "failed",
            "simulated_seconds",
            "wall_seconds",
            "ttft_p50_ms",
            "ttft_p99_ms",
            "tpot_p50_ms",
            "tpot_p99_ms",
            "itl_p50_ms",
            "itl_p99_ms",
            "e2el_p99_ms",
            "goodput_rps",
            "slo_attainment",
            "local_hit_ratio",
            "remote_hit_ratio",
            "fetched_bytes",
            "fallbacks",
            "wrong_hits_used",
            "seed",
            "mode",
            "emulated"
        }) {
            assertThat(j.has(k)).as(k).isTrue();
        }
        assertThat(j.get("requests").asLong()).isEqualTo(12);
        assertThat(j.get("completed").asLong()).isEqualTo(12);
        assertThat(j.get("seed").asLong()).isEqualTo(3);
        assertThat(j.get("mode").asText()).isEqualTo("sim");
        assertThat(j.get("wrong_hits_used").asLong()).isZero();
        Cli human = Cli.run("run", config("").toString(), "--out", out());
        assertThat(human.exit()).isZero();
        assertThat(human.out()).contains("ttft_p99_ms").contains("clock");
        // the bundle path is the last line of stdout (human) or the last line of stderr (--json)
        String[] lines = human.out().strip().split("\n");
        assertThat(java.nio.file.Path.of(lines[lines.length - 1]).resolve("manifest.json"))
                .exists();
        String[] errLines = c.err().strip().split("\n");
        assertThat(java.nio.file.Path.of(errLines[errLines.length - 1]).resolve("summary.csv"))
                .exists();
        // not in the JSON: runs of one config and seed print the same object
        assertThat(j.has("bundle")).isFalse();
    }

    private String out() {
        return dir.resolve("runs").toString();
    }

    @Test
    void badConfigExitsTwoNamingFileAndLine() throws Exception {
        Path f = config("scheduler:\n  budget: 3\n");
        Cli c = Cli.run("run", f.toString(), "--json", "--out", out());
        assertThat(c.exit()).isEqualTo(2);
        assertThat(c.err()).contains(f + ":10:").contains("unknown key 'scheduler.budget'");
        assertThat(c.out()).isEmpty();
        Cli s = Cli.run("run", config("").toString(), "--set", "cluster.instances=-1", "--json", "--out", out());
        assertThat(s.exit()).isEqualTo(2);
        assertThat(s.err()).contains("--set cluster.instances=-1");
        assertThat(Cli.run("run", dir.resolve("missing.yaml").toString(), "--out", out())
                        .exit())
                .isEqualTo(2);
        assertThat(Cli.run("run", config("").toString(), "--mode", "warp", "--out", out())
                        .exit())
                .isEqualTo(2);
        assertThat(dir.resolve("runs")).doesNotExist(); // nothing written on bad input
    }
}
