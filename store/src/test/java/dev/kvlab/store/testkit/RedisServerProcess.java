package dev.kvlab.store.testkit;

import dev.kvlab.store.LoopbackPorts;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real {@code redis-server} for tests: started on a free loopback port in a temporary directory, no persistence,
 * stopped and cleaned up by {@link #close()}. When the binary is missing the test is skipped with the reason —
 * unless {@code KVLAB_CI=1}, then it fails.
 */
public final class RedisServerProcess implements AutoCloseable {

    private final Process process;
    private final Path dir;
    private final int port;

    private RedisServerProcess(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /** Starts a server, or skips/fails the calling test when {@code redis-server} is not installed. */
    public static RedisServerProcess start() {
        String bin = findBinary();
        if (bin == null) {
            String why = "redis-server is not installed (apt-get install redis-server)";
            if ("1".equals(System.getenv("KVLAB_CI")))
                throw new IllegalStateException(why + "; KVLAB_CI=1 requires it");
            Assumptions.abort(why);
        }
        try {
            for (int attempt = 1; ; attempt++) {
                Path dir = Files.createTempDirectory("kvlab-redis-");
                int port = LoopbackPorts.free();
                Process p = new ProcessBuilder(
                                bin,
                                "--port",
                                String.valueOf(port),
                                "--bind",
                                "127.0.0.1",
                                "--save",
                                "",
                                "--appendonly",
                                "no",
                                "--dir",
                                dir.toString(),
                                "--daemonize",
                                "no",
                                "--protected-mode",
                                "yes")
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("redis.log").toFile())
                        .start();
                RedisServerProcess r = new RedisServerProcess(p, dir, port);
                try {
                    r.awaitReady();
                    return r;
                } catch (IOException e) {
                    boolean again = attempt < 5 && LoopbackPorts.lostRace(r.log());
                    r.close();
                    if (!again) throw e;
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not start redis-server: " + e.getMessage(), e);
        }
    }

    private static String findBinary() {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(d, "redis-server");
            if (Files.isExecutable(p)) return p.toString();
        }
        return Files.isExecutable(Path.of("/usr/bin/redis-server")) ? "/usr/bin/redis-server" : null;
    }

    private void awaitReady() throws IOException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < until) {
            if (!process.isAlive()) throw new IOException("redis-server exited: " + log());
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                byte[] b = new byte[7];
                int n = s.getInputStream().read(b);
                if (n > 0 && new String(b, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG")) return;
            } catch (IOException notYet) {
                // starting
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted");
            }
        }
        close();
        throw new IOException("redis-server did not answer within 10 s: " + log());
    }

    private String log() {
        try {
            List<String> l = Files.readAllLines(dir.resolve("redis.log"));
            return String.join(" | ", l.subList(Math.max(0, l.size() - 5), l.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:PORT}. */
    public String uri() {
        return "redis://127.0.0.1:" + port;
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
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // temp dir
        }
    }
}
