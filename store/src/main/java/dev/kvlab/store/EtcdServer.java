package dev.kvlab.store;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real etcd (Debian's {@code etcd-server}) of one member on loopback, in a temporary data directory: what a replicated
 * store's tests, {@code kvlab bench master --ha} and a fault cell's failover start for themselves. {@link #close()}
 * stops it and removes the directory.
 */
public final class EtcdServer implements AutoCloseable {

    private final Process process;
    private final Path dir;
    private final int port;

    private EtcdServer(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /** The etcd binary on the PATH (or /usr/bin/etcd), if installed. */
    public static Optional<String> binary() {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(d, "etcd");
            if (Files.isExecutable(p)) return Optional.of(p.toString());
        }
        return Files.isExecutable(Path.of("/usr/bin/etcd")) ? Optional.of("/usr/bin/etcd") : Optional.empty();
    }

    /**
     * Starts one on free loopback ports ({@link LoopbackPorts}) and waits (up to 30 s) until it is healthy; when another
     * process took a port first it starts again on new ones (up to 5 times); {@link IOException} saying why not.
     */
    public static EtcdServer start() throws IOException {
        String bin = binary().orElseThrow(() -> new IOException("etcd is not installed (apt-get install etcd-server)"));
        for (int attempt = 1; ; attempt++) {
            EtcdServer e = launch(bin);
            try {
                e.awaitHealthy(Duration.ofSeconds(30));
                return e;
            } catch (IOException ex) {
                boolean again = attempt < 5 && LoopbackPorts.lostRace(e.log());
                e.close();
                if (!again) throw ex;
            }
        }
    }

    private static EtcdServer launch(String bin) throws IOException {
        Path dir = Files.createTempDirectory("kvlab-etcd-");
        int[] ports = LoopbackPorts.free(2);
        String c = "http://127.0.0.1:" + ports[0], p = "http://127.0.0.1:" + ports[1];
        Process proc = new ProcessBuilder(
                        bin,
                        "--name",
                        "kvlab",
                        "--data-dir",
                        dir.resolve("data").toString(),
                        "--listen-client-urls",
                        c,
                        "--advertise-client-urls",
                        c,
                        "--listen-peer-urls",
                        p,
                        "--initial-advertise-peer-urls",
                        p,
                        "--initial-cluster",
                        "kvlab=" + p)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("etcd.log").toFile())
                .start();
        return new EtcdServer(proc, dir, ports[0]);
    }

    private void awaitHealthy(Duration limit) throws IOException {
        long until = System.nanoTime() + limit.toNanos();
        try (HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()) {
            while (System.nanoTime() < until) {
                if (!process.isAlive()) throw new IOException("etcd exited: " + log());
                try {
                    HttpResponse<String> r = http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                                    .timeout(Duration.ofSeconds(1))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200 && r.body().contains("true")) return;
                } catch (IOException notYet) {
                    // starting
                }
                Thread.sleep(100);
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for etcd");
        }
        throw new IOException("etcd was not healthy within " + limit.toSeconds() + " s: " + log());
    }

    /** The last lines of its log. */
    public String log() {
        try {
            List<String> l = Files.readAllLines(dir.resolve("etcd.log"));
            return String.join(" | ", l.subList(Math.max(0, l.size() - 3), l.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    public int port() {
        return port;
    }

    /** {@code 127.0.0.1:PORT}. */
    public String endpoint() {
        return "127.0.0.1:" + port;
    }

    /** {@code etcd://127.0.0.1:PORT}. */
    public String spec() {
        return "etcd://" + endpoint();
    }

    public Process process() {
        return process;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory
        }
    }
}
