package dev.kvlab.harness.metrics;

import dev.kvlab.store.LoopbackPorts;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real InfluxDB 1.x ({@code influxd}, Debian's package) for a test: its own temp directory, free loopback ports,
 * reporting off. Missing binary: the test is skipped with the reason, unless {@code KVLAB_CI=1} (then it fails).
 */
public final class Influxd implements AutoCloseable {

    private final Path dir;
    private final Process process;
    private final int httpPort;
    private final HttpClient http = HttpClient.newHttpClient();

    private Influxd(Path dir, Process process, int httpPort) {
        this.dir = dir;
        this.process = process;
        this.httpPort = httpPort;
    }

    /** The influxd binary, or {@code null}. */
    public static Path binary() {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path p = Path.of(d, "influxd");
            if (Files.isExecutable(p)) return p;
        }
        Path p = Path.of("/usr/bin/influxd");
        return Files.isExecutable(p) ? p : null;
    }

    /** Skips (or, with KVLAB_CI=1, fails) when influxd is missing. */
    public static Path requireBinary() {
        Path b = binary();
        if (b == null) {
            String why = "influxd (InfluxDB 1.x, Debian package 'influxdb') is not installed";
            if ("1".equals(System.getenv("KVLAB_CI"))) throw new AssertionError(why + " and KVLAB_CI=1");
            Assumptions.abort(why + ": skipped");
        }
        return b;
    }

    /** Starts one on free loopback ports; when another process took a port first, again on new ones (up to 5 times). */
    public static Influxd start() throws IOException, InterruptedException {
        Path bin = requireBinary();
        for (int attempt = 1; ; attempt++) {
            try {
                return launch(bin);
            } catch (PortTaken e) {
                if (attempt == 5) throw e;
            }
        }
    }

    /** influxd exited because a port it was given was taken. */
    private static final class PortTaken extends IOException {
        PortTaken(String log) {
            super("influxd exited: " + log);
        }
    }

    private static Influxd launch(Path bin) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("kvlab-influxd-");
        int[] ports = LoopbackPorts.free(2);
        int hp = ports[0], bp = ports[1];
        Files.writeString(dir.resolve("influx.conf"), """
                reporting-disabled = true
                bind-address = "127.0.0.1:%d"
                [meta]
                  dir = "%s/meta"
                [data]
                  dir = "%s/data"
                  wal-dir = "%s/wal"
                [http]
                  bind-address = "127.0.0.1:%d"
                  log-enabled = false
                """.formatted(bp, dir, dir, dir, hp));
        Process p = new ProcessBuilder(
                        bin.toString(), "-config", dir.resolve("influx.conf").toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("influxd.log").toFile())
                .start();
        Influxd i = new Influxd(dir, p, hp);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < until) {
            if (!p.isAlive()) {
                String log = Files.readString(dir.resolve("influxd.log"));
                i.close();
                if (LoopbackPorts.lostRace(log)) throw new PortTaken(log);
                throw new IOException("influxd exited: " + log);
            }
            try {
                HttpResponse<Void> r = i.http.send(
                        HttpRequest.newBuilder(URI.create(i.url() + "/ping")).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 204) return i;
            } catch (IOException notYet) {
                // starting
            }
            Thread.sleep(100);
        }
        i.close();
        throw new IOException("influxd did not answer /ping within 30 s");
    }

    public String url() {
        return "http://127.0.0.1:" + httpPort;
    }

    /** Runs an InfluxQL query against {@code db}; the JSON answer. */
    public String query(String db, String q) throws IOException, InterruptedException {
        String u = url() + "/query?db=" + URLEncoder.encode(db, StandardCharsets.UTF_8) + "&epoch=ms&q="
                + URLEncoder.encode(q, StandardCharsets.UTF_8);
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(u))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IOException("HTTP " + r.statusCode() + ": " + r.body());
        return r.body();
    }

    public static int freePort() {
        return LoopbackPorts.free();
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS))
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }
}
