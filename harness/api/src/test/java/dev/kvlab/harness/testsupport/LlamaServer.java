package dev.kvlab.harness.testsupport;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * A real llama-server started by a test on loopback: the binary {@code scripts/llama-server.sh} builds and caches
 * (skipped with the reason when it has not been built; failed instead when {@code KVLAB_CI=1}), on a free port,
 * stopped on close.
 */
public final class LlamaServer implements AutoCloseable {

    private final Process process;
    private final Path log;
    public final int port;

    private LlamaServer(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** Starts llama-server on {@code model} with {@code flags} after the common ones; waits until it is healthy. */
    public static LlamaServer start(Path model, Path dir, String... flags) throws Exception {
        Path bin = binary();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> cmd = new ArrayList<>(List.of(
                bin.toString(),
                "-m",
                model.toString(),
                "--host",
                "127.0.0.1",
                "--port",
                String.valueOf(port),
                "-t",
                "1",
                "--metrics",
                "--slots"));
        cmd.addAll(List.of(flags));
        Path log = dir.resolve("llama-server-" + port + ".log");
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        LlamaServer s = new LlamaServer(p, log, port);
        try {
            s.awaitHealthy();
        } catch (Exception | AssertionError e) {
            s.close();
            throw e;
        }
        return s;
    }

    /** Kills the server at once (SIGKILL), as a crash would. */
    public void kill() {
        process.destroyForcibly();
    }

    private void awaitHealthy() throws Exception {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive())
                throw new AssertionError("llama-server exited " + process.exitValue() + ":\n" + tail());
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(url() + "/health"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) return;
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("llama-server not healthy within 120 s:\n" + tail());
    }

    public String tail() throws IOException {
        List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    /** The binary {@code scripts/llama-server.sh} builds, at the path it caches it; skips (or fails on CI) when absent. */
    public static Path binary() throws IOException {
        Path script = dev.kvlab.workloads.testing.SourceTree.file("scripts/llama-server.sh");
        Matcher m = Pattern.compile("(?m)^COMMIT=(\\S+)").matcher(Files.readString(script));
        if (!m.find()) throw new AssertionError(script + " has no COMMIT= line");
        String cache = System.getenv("KVLAB_CACHE") != null
                ? System.getenv("KVLAB_CACHE")
                : System.getProperty("user.home") + "/.cache/kvlab";
        Path bin = Path.of(cache, "llama.cpp", m.group(1), "build", "bin", "llama-server");
        if (!Files.isExecutable(bin)) {
            String why = "llama-server is not built (" + bin + " is missing; run scripts/llama-server.sh once)";
            if ("1".equals(System.getenv("KVLAB_CI"))) throw new AssertionError(why + " and KVLAB_CI=1");
            Assumptions.abort(why);
        }
        return bin;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS))
            process.destroyForcibly().waitFor();
    }
}
