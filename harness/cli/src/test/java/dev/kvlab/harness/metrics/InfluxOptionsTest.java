package dev.kvlab.harness.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.cli.Kvlab;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code --influx*} options: bad combinations are bad input (exit 2) before anything runs; a down InfluxDB is not. */
class InfluxOptionsTest {

    /** Runs the CLI in-process with System.err captured (the CLI's own messages and the publisher's go there). */
    private static int run(StringBuilder err, String... args) {
        PrintStream old = System.err;
        ByteArrayOutputStream sysErr = new ByteArrayOutputStream();
        System.setErr(new PrintStream(sysErr, true, StandardCharsets.UTF_8));
        try {
            picocli.CommandLine cl = Kvlab.commandLine();
            cl.setOut(new PrintWriter(new java.io.StringWriter(), true));
            return cl.execute(args);
        } finally {
            System.setErr(old);
            err.append(sysErr.toString(StandardCharsets.UTF_8));
        }
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "--influx-db kvlab|need --influx URL",
                "--influx ftp://127.0.0.1:1|expected http://HOST:PORT",
                "--influx http://u:p@127.0.0.1:1|credentials do not belong in the URL",
                "--influx http://127.0.0.1:1 --influx-interval 10ms|between 100ms and 1h",
                "--influx http://127.0.0.1:1 --influx-interval soon|--influx-interval",
                "--influx http://127.0.0.1:1 --influx-db a --influx-org o --influx-bucket b|exclude each other",
                "--influx http://127.0.0.1:1 --influx-org o|needs both --influx-org and --influx-bucket",
                "--influx http://127.0.0.1:1 --influx-token-env X|--influx-token-env is for the 2.x API",
                "--influx http://127.0.0.1:1 --influx-org o --influx-bucket b --influx-token-env 1BAD|not an environment variable name"
            })
    void badOptionsAreBadInput(String opts, String message, @TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("cell.yaml");
        Files.writeString(cfg, SimRuns.BASE);
        StringBuilder err = new StringBuilder();
        String[] args = ("run " + cfg + " --out " + dir.resolve("runs") + " " + opts).split(" ");
        assertThat(run(err, args)).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).contains(message);
    }

    @Test
    void aRunAgainstADownInfluxDbSucceedsAndReportsTheDroppedPushes(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("cell.yaml");
        Files.writeString(cfg, SimRuns.BASE);
        StringBuilder err = new StringBuilder();
        Path out = dir.resolve("runs");
        int code = run(
                err,
                "run",
                cfg.toString(),
                "--out",
                out.toString(),
                "--influx",
                "http://127.0.0.1:" + Influxd.freePort(),
                "--influx-db",
                "kvlab",
                "--json");
        assertThat(code).as(err.toString()).isZero();
        String e = err.toString();
        assertThat(e.split("not taking pushes", -1)).hasSize(2);
        assertThat(e).containsPattern("dropped [1-9]\\d* \\([1-9]\\d* pushes, 1 summary points\\)");
        try (var s = Files.walk(out)) {
            Path manifest = s.filter(f -> f.getFileName().toString().equals("manifest.json"))
                    .findFirst()
                    .orElseThrow();
            var obs = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(manifest.toFile())
                    .path("observability");
            assertThat(obs.path("dropped_summary_points").asLong()).isEqualTo(1);
            assertThat(obs.path("dropped_pushes").asLong()).isPositive();
            assertThat(obs.path("first_error").asText()).contains("Connection refused");
            StringBuilder verr = new StringBuilder();
            assertThat(run(verr, "verify", manifest.getParent().toString()))
                    .as("kvlab verify with the observability section: " + verr)
                    .isZero();
        }
    }
}
