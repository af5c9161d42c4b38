package dev.kvlab.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.OutputFile;
import dev.kvlab.harness.benchmark.Benchmarks;
import dev.kvlab.harness.benchmark.api.CalibrationSettings;
import dev.kvlab.harness.benchmark.api.StoreTarget;
import dev.kvlab.harness.benchmark.api.TargetCalibrationResult;
import dev.kvlab.harness.llama.LlamaCpp;
import dev.kvlab.harness.llama.api.EngineCatalog;
import dev.kvlab.harness.llama.api.EngineUnavailableException;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.TransportProfile;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kvlab calibrate}: measures the live transports (latency from small transfers, bandwidth from large
 * ones) and writes a TransportModel profile that sim runs load ({@code transport: PROFILE.yaml#tcp}).
 */
@Command(
        name = "calibrate",
        mixinStandardHelpOptions = true,
        description =
                "Measures the live transports (latency from small transfers, bandwidth from large ones) and writes a "
                        + "TransportModel profile (YAML, labelled with the machine and date) that sim runs load as PROFILE.yaml#<transport>. "
                        + "With --target kvlab://HOST:PORT it measures a running store instead, from this host through the store's client: "
                        + "round trip, small-get latency and the bandwidth its links deliver.")
public final class CalibrateCommand implements Callable<Integer> {

    @Spec
    CommandSpec cmd;

    static final Path DEFAULT_OUT = Path.of("transport-profile.yaml");

    @Option(
            names = "--out",
            paramLabel = "PROFILE.yaml",
            description = "where to write the profile (default transport-profile.yaml; with --target only when given)")
    Path out;

    @Option(
            names = "--target",
            paramLabel = "kvlab://HOST:PORT",
            description =
                    "calibrate against this running store (its master; the nodes it names) instead of local transports")
    String target;

    @Option(
            names = "--transport",
            defaultValue = "tcp",
            paramLabel = "NAME",
            description = "with --target: the nodes' data plane [${DEFAULT-VALUE}]")
    String transport;

    @Option(names = "--json", description = "with --target: print the measurement as one JSON object")
    boolean json;

    @Option(
            names = "--transports",
            split = ",",
            paramLabel = "NAME",
            description = "which transports, comma-separated (default: all)")
    List<String> transports;

    @Option(
            names = "--duration",
            defaultValue = "1s",
            paramLabel = "DUR",
            description = "measured time of each of the 4 measurements per transport (default ${DEFAULT-VALUE})")
    String duration;

    @Option(names = "--link", paramLabel = "SPEC", description = "the NIC rdma-emu emulates (default 200gbps@2us)")
    String link;

    @Option(
            names = "--engine",
            paramLabel = "FILE.gguf",
            description =
                    "calibrate a real engine instead: llama.cpp's prefill and decode of this "
                            + "GGUF model on this CPU, written as a catalog (the model and a calibrated 'hardware') for kvlab breakeven --catalog")
    Path engine;

    @Option(
            names = "--endpoint",
            paramLabel = "URL",
            description =
                    "calibrate the twin of an OpenAI-compatible engine (llama-server, vLLM, SGLang) "
                            + "from its answers: prompts of two lengths cold, a suffix behind a cached prefix, decode gaps; timed by the engine where it "
                            + "reports its timings (llama.cpp), by this client otherwise; writes the fitted twin as JSON (default twin.json)")
    String endpoint;

    @Option(
            names = "--model",
            defaultValue = "default",
            paramLabel = "NAME",
            description = "with --endpoint: the served model's name [${DEFAULT-VALUE}]")
    String served;

    @Option(
            names = "--gguf",
            paramLabel = "FILE",
            description = "with --endpoint: the model's GGUF, for its shape (default: the file the server "
                    + "names in /props, when this machine has it)")
    Path gguf;

    @Option(
            names = "--prompt-tokens",
            split = ",",
            paramLabel = "SHORT,LONG",
            description =
                    "with --endpoint: the two cold prompt lengths; " + "LONG is also the cached prefix [128,1024]")
    List<Integer> promptTokens;

    @Option(
            names = "--suffix-tokens",
            defaultValue = "64",
            description = "with --endpoint: the suffix timed behind the cached prefix [${DEFAULT-VALUE}]")
    int suffixTokens;

    @Option(
            names = "--repeats",
            defaultValue = "3",
            description = "with --endpoint: timings per figure, the median kept [${DEFAULT-VALUE}]")
    int repeats;

    @Option(
            names = "--threads",
            defaultValue = "1",
            description = "with --engine: threads of the context [${DEFAULT-VALUE}]")
    int threads;

    @Option(
            names = "--prefix-tokens",
            defaultValue = "1024",
            description =
                    "with --engine: the chunk prefilled into an empty context and "
                            + "behind a context of up to four chunks; at most half the model's context (the default is lowered to fit, a larger value given is refused) [${DEFAULT-VALUE}]")
    int prefixTokens;

    @Option(
            names = "--decode-tokens",
            defaultValue = "32",
            description = "with --engine: decode steps timed after a short and after a long context [${DEFAULT-VALUE}]")
    int decodeTokens;

    @Option(
            names = "--block-tokens",
            defaultValue = "32",
            description = "with --engine: tokens per fetched KV block, for timing the load of "
                    + "fetched KV into the engine [${DEFAULT-VALUE}]")
    int blockTokens;

    @Override
    public Integer call() throws Exception {
        Transports known = Transports.discover();
        if (endpoint != null) return calibrateEndpoint();
        if (engine != null) return calibrateEngine();
        if (target != null) return calibrateTarget(known);
        if (json)
            throw new ParameterException(
                    cmd.commandLine(), "--json needs --target (the local calibration writes a profile)");
        if (out == null) out = DEFAULT_OUT;
        CalibrationSettings s = CalibrationSettings.parse(known.names(), transports, duration, link);
        OutputFile.checkWritableYaml("--out", out, "profile");
        TransportProfile profile =
                Benchmarks.calibrate(known, s.duration(), s.link(), this::progress, Clock.systemUTC(), s.transports());
        profile.write(out);
        PrintWriter o = cmd.commandLine().getOut();
        o.println("wrote " + out.toAbsolutePath() + " ("
                + String.join(", ", profile.models().keySet()) + "; machine "
                + profile.machine().getOrDefault("host", "?") + ", " + profile.created() + ")");
        o.flush();
        return Kvlab.EXIT_OK;
    }

    /** {@code --endpoint}: the twin of an OpenAI-compatible engine, fitted from its answers, as JSON (default twin.json). */
    private Integer calibrateEndpoint() throws Exception {
        if (engine != null || target != null)
            throw new ParameterException(
                    cmd.commandLine(),
                    "--endpoint calibrates an engine over HTTP: give it without --engine and --target");
        java.net.URI u;
        try {
            u = java.net.URI.create(endpoint.replaceAll("/+$", ""));
            if (u.getScheme() == null || !u.getScheme().startsWith("http") || u.getHost() == null)
                throw new IllegalArgumentException("not http(s)://HOST[:PORT]");
        } catch (IllegalArgumentException e) {
            throw new ParameterException(
                    cmd.commandLine(),
                    "--endpoint: '" + endpoint + "' is not a URL (http://HOST:PORT): " + e.getMessage());
        }
        List<Integer> pt = promptTokens == null ? List.of(128, 1024) : promptTokens;
        if (pt.size() != 2)
            throw new ParameterException(cmd.commandLine(), "--prompt-tokens: give two lengths SHORT,LONG, got " + pt);
        dev.kvlab.harness.api.twin.EndpointCalibrationPlan plan;
        try {
            plan = new dev.kvlab.harness.api.twin.EndpointCalibrationPlan(
                    pt.get(0), pt.get(1), suffixTokens, decodeTokens, repeats);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd.commandLine(), e.getMessage());
        }
        if (gguf != null && !Files.isRegularFile(gguf))
            throw new ParameterException(cmd.commandLine(), "--gguf: no such file " + gguf);
        Path file = out == null ? Path.of("twin.json") : out;
        if (Files.isDirectory(file))
            throw new ParameterException(cmd.commandLine(), "--out: " + file + " is a directory");
        cmd.commandLine()
                .getErr()
                .println("kvlab: calibrating the twin of " + u + ": cold prompts of " + pt.get(0) + " and " + pt.get(1)
                        + " tokens, " + suffixTokens + " behind " + pt.get(1) + " cached, " + decodeTokens
                        + " decode steps, " + repeats + " times each");
        cmd.commandLine().getErr().flush();
        var cal = dev.kvlab.harness.openai.EndpointTwins.calibrate(u, served, gguf, plan);
        Files.write(file, dev.kvlab.harness.bundle.BundleJson.pretty(cal.twin()));
        PrintWriter o = cmd.commandLine().getOut();
        o.print(cal.text());
        o.println("wrote " + file.toAbsolutePath());
        o.flush();
        return Kvlab.EXIT_OK;
    }

    /** {@code --engine}: the engine's measured prefill and decode as a catalog file (default engine-catalog.yaml). */
    private Integer calibrateEngine() throws Exception {
        if (target != null)
            throw new ParameterException(
                    cmd.commandLine(), "--engine and --target calibrate different things: give one");
        if (threads < 1 || threads > 256)
            throw new ParameterException(cmd.commandLine(), "--threads must be in [1, 256], got " + threads);
        Path file = out == null ? Path.of("engine-catalog.yaml") : out;
        OutputFile.checkWritableYaml("--out", file, "profile");
        GgufModelInfo info = Gguf.read(engine);
        int most = LlamaCpp.largestCalibrationChunk(info, decodeTokens);
        if (prefixTokens > most) {
            String why = "the model's context is " + info.contextLength()
                    + " tokens: a chunk into an empty context and behind another, then " + decodeTokens
                    + " decode steps, fit chunks of at most " + most + " tokens";
            if (most < 16)
                throw new BadInputException(
                        "--engine: " + why + " (at least 16 needed): the model's context is too short to calibrate on");
            if (cmd.commandLine().getParseResult().hasMatchedOption("--prefix-tokens"))
                throw new ParameterException(
                        cmd.commandLine(),
                        "--prefix-tokens " + prefixTokens + ": " + why + " (give --prefix-tokens " + most
                                + " or less)");
            cmd.commandLine()
                    .getErr()
                    .println("kvlab: --prefix-tokens: " + why + ": calibrating with chunks of " + most
                            + " tokens, not the default " + prefixTokens);
            prefixTokens = most;
        }
        LlamaCpp lib;
        try {
            lib = LlamaCpp.load();
        } catch (EngineUnavailableException e) {
            throw new BadInputException("--engine: llama.cpp is not available: " + e.getMessage());
        }
        cmd.commandLine()
                .getErr()
                .println("kvlab: calibrating llama.cpp on " + engine.getFileName() + " with " + threads
                        + " thread(s): chunks of " + prefixTokens + " tokens, " + decodeTokens
                        + " decode steps (a few passes of each; minutes for long chunks on a CPU)");
        cmd.commandLine().getErr().flush();
        EngineCatalog c;
        try {
            c = lib.calibrate(info, threads, prefixTokens, decodeTokens, blockTokens);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd.commandLine(), e.getMessage(), e);
        }
        Files.writeString(file, c.yaml());
        PrintWriter o = cmd.commandLine().getOut();
        o.print(c.text());
        o.println("wrote " + file.toAbsolutePath() + ": kvlab breakeven --catalog " + file + " --model "
                + c.model().id() + " --hardware " + c.hardware().id() + " --dtype fp16 --link LINK");
        o.flush();
        return Kvlab.EXIT_OK;
    }

    private Integer calibrateTarget(Transports known) throws Exception {
        StoreTarget at = StoreTarget.parse(target);
        if (transports != null)
            throw new ParameterException(
                    cmd.commandLine(), "--transports does not apply with --target (use --transport)");
        if (link != null)
            throw new ParameterException(
                    cmd.commandLine(), "--link does not apply with --target (the link is what is measured)");
        if (!known.names().contains(transport) || "local".equals(transport))
            throw new ParameterException(
                    cmd.commandLine(), "--transport: '" + transport + "' cannot reach a store in other processes");
        Duration d = CalibrationSettings.duration(duration);
        if (out != null) OutputFile.checkWritableYaml("--out", out, "profile");
        TargetCalibrationResult r = Benchmarks.calibrateTarget(at, transport, d, this::progress, known);
        if (out != null) {
            Benchmarks.targetProfile(target, transport, r, Clock.systemUTC()).write(out);
            cmd.commandLine()
                    .getErr()
                    .println("wrote " + out.toAbsolutePath() + " (" + transport + ": use it as " + out.getFileName()
                            + "#" + transport + ")");
        }
        PrintWriter o = cmd.commandLine().getOut();
        if (json) {
            o.println(new ObjectMapper().writeValueAsString(r));
        } else {
            o.printf(
                    Locale.ROOT,
                    "%s over %s: rtt %.1f us, small get %.1f us, bandwidth %.3f Gbit/s (%.1f MB/s payload, %d threads); link %s%n",
                    target,
                    transport,
                    r.rttUs(),
                    r.latencyUs(),
                    r.bandwidth() * 8 / 1e9,
                    r.bandwidth() / 1e6,
                    r.threads(),
                    r.link());
        }
        o.flush();
        return Kvlab.EXIT_OK;
    }

    /** A measurement's progress line, on stderr at once. */
    private void progress(String line) {
        PrintWriter err = cmd.commandLine().getErr();
        err.println(line);
        err.flush();
    }
}
