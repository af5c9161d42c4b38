package dev.kvlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * Bad input across the CLI, as a table: broken matrices, configs, traces and options given to {@code kvlab run}.
 * Every one exits 2 with a one-line message naming the file and line (or the key / option), and leaves nothing in
 * {@code --out}: no bundle, no hidden partial run. One case also goes through a real child process (the exit code
 * the shell sees).
 */
class BadInputCliTest {

    @TempDir
    Path tmp;

    static final String BASE = """
            mode: sim
            model: llama-3-8b
            hardware: h100
            cluster:
              instances: 2
            workload:
              generator:
                kind: shared-prefix
                groups: 2
                prompts_per_group: 4
                prefix_tokens: 1024
                suffix_tokens: 100
                output_tokens: 4
              arrival:
                process: poisson
                rate: 2
            """;

    static final String TRACE_OK =
            "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 4, \"hash_ids\": [1, 2]}\n";

    /** name, matrix text (BASE is prepended unless it starts with '!'), extra args, expected message fragments (FILE means the matrix path). */
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(
                        "unknown key", "tiers: combined\nbogus_key: 1\n", List.of(), List.of("FILE:18", "bogus_key")),
                Arguments.of("bad enum", "policy: fetch-everything\n", List.of(), List.of("FILE:17", "policy")),
                Arguments.of(
                        "bad size",
                        "store:\n  capacity: 12 parsecs\n",
                        List.of(),
                        List.of("FILE:18", "store.capacity")),
                Arguments.of(
                        "bad duration",
                        "store:\n  lease_ttl: soon\n",
                        List.of(),
                        List.of("FILE:18", "store.lease_ttl")),
                Arguments.of("bad link", "transport: 10 gigabits\n", List.of(), List.of("FILE:17", "transport")),
                Arguments.of(
                        "negative count",
                        "scheduler:\n  max_running: -2\n",
                        List.of(),
                        List.of("FILE", "scheduler.max_running")),
                Arguments.of("yaml syntax", "tiers: [combined\n", List.of(), List.of("FILE:")),
                Arguments.of(
                        "factor not a list", "factors:\n  tiers: combined\n", List.of(), List.of("FILE:18", "tiers")),
                Arguments.of(
                        "bad factor level",
                        "factors:\n  policy: [fetch, never]\n",
                        List.of(),
                        List.of("FILE:18", "policy")),
                Arguments.of("zero replicates", "replicates: 0\n", List.of(), List.of("FILE:17", "replicates")),
                Arguments.of(
                        "missing trace",
                        "!mode: sim\nworkload:\n  trace: no-such-trace.jsonl\n",
                        List.of(),
                        List.of("FILE:3", "no-such-trace.jsonl")),
                Arguments.of(
                        "trace is a directory", "!mode: sim\nworkload:\n  trace: .\n", List.of(), List.of("trace")),
                Arguments.of(
                        "broken trace line",
                        "!mode: sim\nworkload:\n  trace: TRACE_BAD\n",
                        List.of(),
                        List.of("bad.jsonl:2")),
                Arguments.of("unknown fault", "fault: meteor\n", List.of(), List.of("FILE:17", "fault", "node-crash")),
                Arguments.of("fault_at out of range", "fault_at: 1.5\n", List.of(), List.of("FILE:17", "fault_at")),
                Arguments.of(
                        "fault param typo",
                        "fault_params:\n  nodes_hitt: 2\n",
                        List.of(),
                        List.of("FILE:18", "nodes_hitt")),
                Arguments.of(
                        "lease-expiry that cannot bite",
                        "fault: lease-expiry\nfault_params:\n  read_delay: 1ms\n",
                        List.of(),
                        List.of("fault_params.read_delay")),
                Arguments.of(
                        "live on a modelled link",
                        "transport: 10gbps\n",
                        List.of("--mode", "live"),
                        List.of("FILE:17", "transport")),
                Arguments.of("bad --set key", "", List.of("--set", "no.such.key=3"), List.of("no.such.key")),
                Arguments.of(
                        "bad --set value",
                        "",
                        List.of("--set", "cluster.instances=many"),
                        List.of("cluster.instances")),
                Arguments.of("bad --mode", "", List.of("--mode", "warp"), List.of("warp")),
                Arguments.of("binary garbage", "!\u0000\u0001\u0002 \uFFFF garbage: [\n", List.of(), List.of("FILE")));
    }

    private record Result(int exit, String out, String err) {}

    private static Result cli(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        CommandLine cl = Kvlab.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return new Result(cl.execute(args), out.toString(), err.toString());
    }

    private static List<Path> entries(Path dir) throws IOException {
        if (!Files.exists(dir)) return List.of();
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void badInputExitsTwoNamesWhereAndWritesNoBundle(
            String name, String text, List<String> extra, List<String> expected) throws IOException {
        Path bad = tmp.resolve("bad.jsonl");
        Files.writeString(
                bad,
                TRACE_OK + "{\"timestamp\": 1, \"input_length\": 600, \"output_length\": 4, \"hash_ids\": [1]}\n"
                        + TRACE_OK);
        String yaml = text.startsWith("!") ? text.substring(1) : BASE + text;
        yaml = yaml.replace("TRACE_BAD", bad.toString());
        Path matrix = tmp.resolve("matrix.yaml");
        Files.writeString(matrix, yaml);
        Path out = tmp.resolve("runs");
        List<String> args = new ArrayList<>(List.of("run", matrix.toString(), "--out", out.toString()));
        args.addAll(extra);
        Result r = cli(args.toArray(String[]::new));
        assertThat(r.exit()).as("%s: exit code; stderr: %s", name, r.err()).isEqualTo(2);
        String message = r.err().strip();
        for (String e : expected) assertThat(message).as(name).contains(e.replace("FILE", matrix.toString()));
        assertThat(message.lines().filter(l -> l.startsWith("kvlab:")).count())
                .as("%s: one message line", name)
                .isGreaterThanOrEqualTo(1);
        assertThat(message).as("%s: no stack trace", name).doesNotContain("\tat ");
        assertThat(entries(out)).as("%s: nothing written to --out", name).isEmpty();
    }

    @Test
    void aBrokenTraceIsNamedByFileAndLineByEveryCommandThatReadsIt() throws IOException {
        Path bad = tmp.resolve("broken.jsonl");
        Files.writeString(
                bad,
                TRACE_OK + TRACE_OK
                        + "{\"timestamp\": 2, \"input_length\": 600, \"output_length\": 4, \"hash_ids\": [1, \"two\"]}\n");
        Result analyze = cli("analyze", bad.toString());
        assertThat(analyze.exit()).as(analyze.err()).isEqualTo(2);
        assertThat(analyze.err()).contains(bad + ":3");
        Path matrix = tmp.resolve("t.yaml");
        Files.writeString(matrix, "mode: sim\nworkload:\n  trace: " + bad + "\n");
        Path out = tmp.resolve("runs");
        Result run = cli("run", matrix.toString(), "--out", out.toString());
        assertThat(run.exit()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains(bad + ":3");
        assertThat(entries(out)).isEmpty();
    }

    @Test
    void theShellSeesExitTwoAndNothingIsWritten() throws Exception {
        Path matrix = tmp.resolve("m.yaml");
        Files.writeString(matrix, BASE + "policy: sometimes\n");
        Path out = tmp.resolve("runs");
        Process p = new ProcessBuilder(
                        ProcessHandle.current().info().command().orElse("java"),
                        "-cp",
                        System.getProperty("java.class.path"),
                        "dev.kvlab.cli.Kvlab",
                        "run",
                        matrix.toString(),
                        "--out",
                        out.toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(output).isEqualTo(2);
        assertThat(output).contains(matrix + ":17").contains("policy");
        assertThat(entries(out)).isEmpty();
    }
}
