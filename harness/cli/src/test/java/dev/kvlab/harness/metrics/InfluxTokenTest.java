package dev.kvlab.harness.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The InfluxDB 2.x token comes from the environment only: a child {@code kvlab run} with the token in its
 * environment sends it (in the {@code Authorization} header of its writes, and nowhere else), and it is absent
 * from the process's arguments ({@code /proc/<pid>/cmdline}), its output, and every file it writes. The 2.x write
 * endpoint here is a recording HTTP server on loopback standing in for InfluxDB 2 (Debian ships only 1.x; the
 * Testcontainers test runs the real one where Docker is available).
 */
class InfluxTokenTest {

    private record Write(String path, String query, String authorization, String body) {}

    @Test
    void theTokenIsUsedButNeverInArgumentsOutputOrFiles(@TempDir Path dir) throws Exception {
        String token = "kvlab-secret-" + HexFormat.of().formatHex(java.security.SecureRandom.getSeed(12));
        List<Write> writes = new CopyOnWriteArrayList<>();
        HttpServer influx2 = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        influx2.createContext("/", ex -> {
            try (ex) {
                writes.add(new Write(
                        ex.getRequestURI().getPath(),
                        ex.getRequestURI().getRawQuery(),
                        ex.getRequestHeaders().getFirst("Authorization"),
                        new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
                ex.sendResponseHeaders(204, -1);
            }
        });
        influx2.start();
        Path cfg = dir.resolve("cell.yaml");
        Files.writeString(cfg, SimRuns.BASE);
        Path out = dir.resolve("runs");
        try (KvlabProcess p = new KvlabProcess(
                Map.of("KVLAB_TEST_INFLUX_TOKEN", token),
                "run",
                cfg.toString(),
                "--out",
                out.toString(),
                "--influx",
                "http://127.0.0.1:" + influx2.getAddress().getPort(),
                "--influx-org",
                "kvlab",
                "--influx-bucket",
                "runs",
                "--influx-token-env",
                "KVLAB_TEST_INFLUX_TOKEN",
                "--influx-interval",
                "200ms",
                "--json")) {
            long pid = p.process.pid();
            byte[] cmdline = Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline"));
            String args = new String(cmdline, StandardCharsets.UTF_8).replace('\0', ' ');
            assertThat(args)
                    .contains("--influx-token-env", "KVLAB_TEST_INFLUX_TOKEN")
                    .doesNotContain(token);
            assertThat(p.process.info().arguments().map(List::of).orElse(List.of()))
                    .noneMatch(a -> a.contains(token));
            assertThat(p.waitFor(120)).as(p.all.toString()).isZero();
            assertThat(p.all.toString()).doesNotContain(token).contains("summary points written; dropped 0");
        } finally {
            influx2.stop(0);
        }
        assertThat(writes).isNotEmpty().allSatisfy(w -> {
            assertThat(w.path()).isEqualTo("/api/v2/write");
            assertThat(w.authorization()).isEqualTo("Token " + token);
            assertThat(w.query()).contains("org=kvlab", "bucket=runs").doesNotContain(token);
            assertThat(w.body()).doesNotContain(token);
        });
        assertThat(writes).anySatisfy(w -> assertThat(w.body()).startsWith("kvlab_summary,"));
        assertThat(writes).anySatisfy(w -> assertThat(w.body()).contains("kvlab_cell_latency,"));
        Path manifest;
        try (Stream<Path> m = Files.walk(out)) {
            manifest = m.filter(f -> f.getFileName().toString().equals("manifest.json"))
                    .findFirst()
                    .orElseThrow();
        }
        JsonNode obs = new ObjectMapper().readTree(manifest.toFile()).path("observability");
        assertThat(obs.path("influx").path("api").asText()).isEqualTo("2.x");
        assertThat(obs.path("influx").path("token_env").asText()).isEqualTo("KVLAB_TEST_INFLUX_TOKEN");
        assertThat(obs.path("dropped_pushes").asLong()).isZero();
        assertThat(obs.path("summary_points").asLong()).isEqualTo(1);
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertThat(Files.readString(f, StandardCharsets.ISO_8859_1))
                        .as(f.toString())
                        .doesNotContain(token);
            }
        }
    }

    @Test
    void aTokenOnTheCommandLineIsRefusedAndAMissingOneIsBadInput(@TempDir Path dir)
            throws IOException, InterruptedException {
        Path cfg = dir.resolve("cell.yaml");
        Files.writeString(cfg, SimRuns.BASE);
        try (KvlabProcess p = new KvlabProcess(
                Map.of(),
                "run",
                cfg.toString(),
                "--out",
                dir.resolve("runs").toString(),
                "--influx",
                "http://127.0.0.1:9",
                "--influx-org",
                "o",
                "--influx-bucket",
                "b",
                "--influx-token",
                "abc")) {
            assertThat(p.waitFor(60)).isEqualTo(2);
            assertThat(p.all.toString()).contains("--influx-token");
        }
        try (KvlabProcess p = new KvlabProcess(
                Map.of(),
                "run",
                cfg.toString(),
                "--out",
                dir.resolve("runs").toString(),
                "--influx",
                "http://127.0.0.1:9",
                "--influx-org",
                "o",
                "--influx-bucket",
                "b",
                "--influx-token-env",
                "KVLAB_NO_SUCH_TOKEN_VAR")) {
            assertThat(p.waitFor(60)).isEqualTo(2);
            assertThat(p.all.toString()).contains("KVLAB_NO_SUCH_TOKEN_VAR", "not set");
        }
    }
}
