package dev.kvlab.harness.llama.internal.realkv;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.harness.llama.api.EngineUnavailableException;
import dev.kvlab.harness.llama.internal.LlamaInstall;
import dev.kvlab.harness.llama.internal.LlamaLibrary;
import dev.kvlab.store.LoopbackPorts;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * kvlab's in-process engine beside llama-server, in one run, on the same model, threads, sequences, flash attention
 * and prompts ({@code kvlab bench engine}): llama-server (built by {@code scripts/llama-server.sh} from the same pinned
 * llama.cpp source, {@code -np sequences -t threads -fa}, no prompt cache) driven by kvlab's {@code openai} target, and
 * the {@code llama.cpp} target (one instance, no cache tier). Each side serves the same distinct prompts twice: at
 * saturation (all requests at once: throughput in completed requests per second of the measured phase) and at a low
 * load (constant arrivals: TTFT p50 with no queueing). The ratios engine / server are the result.
 */
public final class EngineBench {

    /**
     * What to measure.
     *
     * @param model            GGUF model file
     * @param threads          threads of each engine
     * @param sequences        sequences served at once (llama-server's -np)
     * @param flashAttn        on | off
     * @param prompts          distinct prompts at saturation
     * @param prefixTokens     prompt tokens of each prompt's own prefix ...
     * @param suffixTokens     ... and of its suffix (a prompt is both, plus the BOS token)
     * @param outputTokens     output tokens per request
     * @param lowRate          arrivals per second of the low load
     * @param lowRequests      requests of the low load
     * @param server           llama-server binary (null: scripts/llama-server.sh's)
     */
    public record Settings(
            Path model,
            int threads,
            int sequences,
            String flashAttn,
            int prompts,
            int prefixTokens,
            int suffixTokens,
            int outputTokens,
            double lowRate,
            int lowRequests,
            Path server) {
        public Settings {
            if (!Files.isRegularFile(model)) throw new BadInputException("--model: no such file " + model);
            if (threads < 1 || threads > 256)
                throw new BadInputException("--threads: must be in [1, 256], got " + threads);
            if (sequences < 1 || sequences > LlamaTargetConfig.MAX_SEQUENCES)
                throw new BadInputException(
                        "--sequences: must be in [1, " + LlamaTargetConfig.MAX_SEQUENCES + "], got " + sequences);
            if (!flashAttn.equals("on") && !flashAttn.equals("off"))
                throw new BadInputException("--flash-attn: on or off, got '" + flashAttn + "'");
            if (prompts < sequences)
                throw new BadInputException(
                        "--prompts: at least --sequences (" + sequences + ") to saturate, got " + prompts);
            if (prefixTokens < 1 || suffixTokens < 1 || outputTokens < 1)
                throw new BadInputException("--prefix-tokens, --suffix-tokens, --output-tokens: must be >= 1");
            if (!(lowRate > 0) || Double.isInfinite(lowRate))
                throw new BadInputException("--low-rate: must be > 0, got " + lowRate);
            if (lowRequests < 1) throw new BadInputException("--low-requests: must be >= 1, got " + lowRequests);
            if (server != null && !Files.isExecutable(server))
                throw new BadInputException("--server: not an executable: " + server);
        }

        /** A prompt's tokens: the prefix, the suffix and the one that makes each prompt distinct. */
        public int promptTokens() {
            return prefixTokens + suffixTokens + 1;
        }
    }

    /**
     * One side at one load. {@code cpuSeconds}: the engine's compute CPU time over the cell, which other load on the
     * machine does not inflate (in-process: the engine threads' CPU time in their {@code llama_decode} steps;
     * llama-server: the whole process's user + system time from {@code /proc}, HTTP and tokenizing included); NaN where
     * unknown. Its JSON object has these fields in this order, snake_case.
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Side(
            String engine,
            String load,
            long requests,
            long completed,
            long failed,
            double throughputRps,
            double ttftP50Ms,
            double ttftP99Ms,
            double itlP50Ms,
            double wallSeconds,
            double cpuSeconds) {}

    /**
     * The result.
     *
     * @param library        the in-process engine's llama.cpp library (prebuilt or native, flags, directory)
     * @param server         the llama-server binary and its build
     * @param serverFlags    llama-server's command-line flags
     * @param sides          engine and server at saturation and at the low load
     * @param throughputRatio engine / server, completed requests per second at saturation
     * @param lowTtftRatio    engine / server, TTFT p50 at the low load
     */
    public record Result(
            Settings settings,
            String library,
            String server,
            String serverFlags,
            List<Side> sides,
            double throughputRatio,
            double lowTtftRatio) {

        /** The result as {@code kvlab bench engine --json} prints it. */
        public Figures figures() {
            Settings s = settings;
            return new Figures(
                    s.model().toString(),
                    s.threads(),
                    s.sequences(),
                    s.flashAttn(),
                    s.prompts(),
                    s.promptTokens(),
                    s.outputTokens(),
                    s.lowRate(),
                    s.lowRequests(),
                    library,
                    server,
                    serverFlags,
                    sides,
                    throughputRatio,
                    lowTtftRatio);
        }

        public String text() {
            StringBuilder b = new StringBuilder();
            Settings s = settings;
            b.append(String.format(
                    Locale.ROOT,
                    "kvlab bench engine: %s, %d thread(s), %d sequences, flash attention %s, no prompt cache; "
                            + "%d distinct %d-token prompts, %d output tokens; low load %.3g req/s x %d%n",
                    s.model().getFileName(),
                    s.threads(),
                    s.sequences(),
                    s.flashAttn(),
                    s.prompts(),
                    s.promptTokens(),
                    s.outputTokens(),
                    s.lowRate(),
                    s.lowRequests()));
            b.append("  in-process engine: ").append(library).append('\n');
            b.append("  llama-server:      ")
                    .append(server)
                    .append("\n                     ")
                    .append(serverFlags)
                    .append('\n');
            b.append(String.format(
                    Locale.ROOT,
                    "  %-18s %-11s %9s %9s %13s %12s %12s %11s %9s%n",
                    "engine",
                    "load",
                    "completed",
                    "failed",
                    "throughput/s",
                    "TTFT p50 ms",
                    "TTFT p99 ms",
                    "ITL p50 ms",
                    "CPU s"));
            for (Side d : sides)
                b.append(String.format(
                        Locale.ROOT,
                        "  %-18s %-11s %9d %9d %13.3f %12.1f %12.1f %11.2f %9.2f%n",
                        d.engine(),
                        d.load(),
                        d.completed(),
                        d.failed(),
                        d.throughputRps(),
                        d.ttftP50Ms(),
                        d.ttftP99Ms(),
                        d.itlP50Ms(),
                        d.cpuSeconds()));
            b.append(String.format(
                    Locale.ROOT,
                    "  engine / llama-server: saturation throughput %.2fx, low-load TTFT p50 %.2fx; CPU seconds at saturation "
                            + "%.2fx (engine steps only against the whole server process: robust to other load on the machine, which the "
                            + "wall-clock ratios are not)%n",
                    throughputRatio,
                    lowTtftRatio,
                    sides.get(0).cpuSeconds() / sides.get(1).cpuSeconds()));
            return b.toString();
        }
    }

    /**
     * The result as {@code kvlab bench engine --json} prints it: the settings (a prompt's tokens in all), the two
     * engines' builds, each side at each load, and the ratios engine / server.
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Figures(
            String model,
            int threads,
            int sequences,
            String flashAttn,
            int prompts,
            int promptTokens,
            int outputTokens,
            double lowRate,
            int lowRequests,
            String engineLibrary,
            String llamaServer,
            String llamaServerFlags,
            List<Side> sides,
            @JsonProperty("saturation_throughput_ratio") double throughputRatio,
            @JsonProperty("low_load_ttft_p50_ratio") double lowTtftRatio) {

        public Figures {
            sides = List.copyOf(sides);
        }
    }

    private EngineBench() {}

    /** Runs the four cells (engine and server, saturated and at the low load); progress lines to {@code progress}. */
    public static Result run(Settings s, PrintStream progress) throws IOException, InterruptedException {
        LlamaLibrary lib = LlamaLibrary.load();
        Path bin = s.server() != null
                ? s.server()
                : LlamaInstall.runScript(LlamaInstall.script().resolveSibling("llama-server.sh"));
        int perSlot = (s.promptTokens() + s.outputTokens() + 255) / 256 * 256;
        Path tmp = Files.createTempDirectory("kvlab-bench-engine");
        int port = LoopbackPorts.free();
        List<String> flags = List.of(
                "-m",
                s.model().toAbsolutePath().toString(),
                "--host",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "-np",
                Integer.toString(s.sequences()),
                "-c",
                Integer.toString(perSlot * s.sequences()),
                "-t",
                Integer.toString(s.threads()),
                "-tb",
                Integer.toString(s.threads()),
                "-fa",
                s.flashAttn(),
                "--cache-ram",
                "0",
                "--metrics",
                "--slots",
                "--slot-save-path",
                tmp.toString());
        List<String> cmd = new ArrayList<>();
        cmd.add(bin.toString());
        cmd.addAll(flags);
        List<Side> sides = new ArrayList<>();
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(tmp.resolve("llama-server.log").toFile())
                .start();
        try {
            waitHealthy(port, p, tmp.resolve("llama-server.log"));
            String url = "http://127.0.0.1:" + port;
            int n = s.prompts();
            double saturate = Math.max(1000, 100.0 * n);
            progress.println("bench engine: in-process engine at saturation (" + n + " requests at once)");
            sides.add(side("in-process engine", "saturation", run(engineYaml(s, n, saturate)), -1));
            progress.println("bench engine: llama-server at saturation");
            sides.add(side("llama-server", "saturation", run(serverYaml(s, url, n, saturate)), p.pid()));
            progress.println("bench engine: in-process engine at " + s.lowRate() + " req/s");
            sides.add(side("in-process engine", "low", run(engineYaml(s, s.lowRequests(), s.lowRate())), -1));
            progress.println("bench engine: llama-server at " + s.lowRate() + " req/s");
            sides.add(side("llama-server", "low", run(serverYaml(s, url, s.lowRequests(), s.lowRate())), p.pid()));
        } finally {
            p.destroy();
            if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) p.destroyForcibly();
            deleteTree(tmp);
        }
        double tr = sides.get(0).throughputRps() / sides.get(1).throughputRps();
        double lr = sides.get(2).ttftP50Ms() / sides.get(3).ttftP50Ms();
        return new Result(
                s,
                lib.install().describe(),
                bin + " (" + serverBuild(bin) + ")",
                String.join(" ", flags.subList(2, flags.size())),
                sides,
                tr,
                lr);
    }

    private static java.util.function.Supplier<CellResult> run(String yaml) {
        RunConfig rc = ConfigTree.parse(yaml, "kvlab bench engine", null).bind();
        return () -> new CellRunner().run(rc);
    }

    /** The cell's figures; {@code pid} the server's process (its CPU time over the cell), -1: the in-process engine's steps. */
    private static Side side(String engine, String load, java.util.function.Supplier<CellResult> cell, long pid) {
        double cpu0 = pid < 0 ? 0 : processCpuSeconds(pid);
        CellResult r = cell.get();
        double cpu = pid < 0
                ? (r.json().get("engine_step_cpu_s") instanceof Number x ? x.doubleValue() : Double.NaN)
                : processCpuSeconds(pid) - cpu0;
        var s = r.summary();
        return new Side(
                engine,
                load,
                s.get(Columns.REQUESTS),
                s.get(Columns.COMPLETED),
                s.get(Columns.FAILED),
                s.get(Columns.THROUGHPUT_RPS),
                s.get(Columns.TTFT_P50),
                s.get(Columns.TTFT_P99),
                s.get(Columns.ITL_P50),
                s.get(Columns.WALL_SECONDS),
                cpu);
    }

    /** User + system CPU seconds of process {@code pid} from {@code /proc/PID/stat} (NaN where there is none). */
    static double processCpuSeconds(long pid) {
        try {
            String st = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12]))
                    / 100.0; // utime, stime in clock ticks (USER_HZ 100 on Linux)
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private static String workload(Settings s, int requests, double rate) {
        return String.format(Locale.ROOT, """
                workload:
                  generator: {kind: shared-prefix, groups: %d, prompts_per_group: 1, prefix_tokens: %d, suffix_tokens: %d, output_tokens: %d, block_tokens: 64}
                  arrival: {process: constant, rate: %s}
                """, requests, s.prefixTokens(), s.suffixTokens(), s.outputTokens(), rate);
    }

    /** The in-process engine: one instance, no cache tier (a context stream per sequence), no twin, no restore check. */
    static String engineYaml(Settings s, int requests, double rate) {
        return String.format(Locale.ROOT, """
                mode: live
                seed: 1
                target: {kind: llama.cpp, model: "%s", threads: %d, sequences: %d, flash_attn: "%s", calibrate_tokens: 0}
                cluster: {instances: 1, router: round-robin}
                store: {backend: bundled, nodes: 1, capacity: 64MiB}
                transport: tcp
                tiers: none
                cache_state: cold
                """, s.model().toAbsolutePath(), s.threads(), s.sequences(), s.flashAttn())
                + workload(s, requests, rate);
    }

    /** llama-server through the openai target, its prompt cache off for these requests. */
    static String serverYaml(Settings s, String url, int requests, double rate) {
        return String.format(Locale.ROOT, """
                mode: live
                seed: 1
                target: {kind: openai, endpoints: ["%s"], model: default, api: completions, extra_body: {cache_prompt: false}}
                cache_state: cold
                """, url) + workload(s, requests, rate);
    }

    private static void waitHealthy(int port, Process p, Path log) throws IOException, InterruptedException {
        HttpClient c =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                .timeout(Duration.ofSeconds(2))
                .build();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            if (!p.isAlive())
                throw new EngineUnavailableException("llama-server exited " + p.exitValue() + ": " + tail(log));
            try {
                if (c.send(req, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) return;
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new EngineUnavailableException("llama-server did not become healthy in 120 s: " + tail(log));
    }

    private static String tail(Path log) {
        try {
            List<String> l = Files.readAllLines(log);
            return String.join(" | ", l.subList(Math.max(0, l.size() - 3), l.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    /** llama-server's build flags from its CMake cache, where it has one. */
    static String serverBuild(Path bin) {
        Path cache = bin.toAbsolutePath().getParent().getParent().resolve("CMakeCache.txt");
        try {
            String native_ = "", type = "";
            for (String line : Files.readAllLines(cache)) {
                if (line.startsWith("GGML_NATIVE:")) native_ = line.substring(line.indexOf('=') + 1);
                if (line.startsWith("CMAKE_BUILD_TYPE:")) type = line.substring(line.indexOf('=') + 1);
            }
            return "built with GGML_NATIVE=" + native_ + ("ON".equals(native_) ? " (-march=native)" : "") + ", " + type;
        } catch (IOException e) {
            return "build flags unknown: no " + cache;
        }
    }

    private static void deleteTree(Path dir) {
        try (var w = Files.walk(dir)) {
            w.sorted(java.util.Comparator.reverseOrder())
                    .forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory
        }
    }
}
