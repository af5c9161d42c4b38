package dev.kvlab.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.Benchmarks;
import dev.kvlab.harness.api.benchmark.TargetCalibrationResult;
import dev.kvlab.harness.api.engine.EngineUnavailableException;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.OutputFile;
import dev.kvlab.harness.internal.llama.LlamaLibrary;
import dev.kvlab.harness.internal.realkv.EngineCalibration;
import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.DurationSpec;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportProfile;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
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
@Command(name = "calibrate", mixinStandardHelpOptions = true,
        description = "Measures the live transports (latency from small transfers, bandwidth from large ones) and writes a "
                + "TransportModel profile (YAML, labelled with the machine and date) that sim runs load as PROFILE.yaml#<transport>. "
                + "With --target kvlab://HOST:PORT it measures a running store instead, from this host through the store's client: "
                + "round trip, small-get latency and the bandwidth its links deliver.")
public final class CalibrateCommand implements Callable<Integer> {

    @Spec CommandSpec cmd;

    static final Path DEFAULT_OUT = Path.of("transport-profile.yaml");

    @Option(names = "--out", paramLabel = "PROFILE.yaml", description = "where to write the profile (default transport-profile.yaml; with --target only when given)")
    Path out;

    @Option(names = "--target", paramLabel = "kvlab://HOST:PORT", description = "calibrate against this running store (its master; the nodes it names) instead of local transports")
    String target;

    @Option(names = "--transport", defaultValue = "tcp", paramLabel = "NAME", description = "with --target: the nodes' data plane [${DEFAULT-VALUE}]")
    String transport;

    @Option(names = "--json", description = "with --target: print the measurement as one JSON object")
    boolean json;

    @Option(names = "--transports", split = ",", paramLabel = "NAME", description = "which transports, comma-separated (default: all)")
    List<String> transports;

    @Option(names = "--duration", defaultValue = "1s", paramLabel = "DUR", description = "measured time of each of the 4 measurements per transport (default ${DEFAULT-VALUE})")
    String duration;

    @Option(names = "--link", paramLabel = "SPEC", description = "the NIC rdma-emu emulates (default 200gbps@2us)")
    String link;

    @Option(names = "--engine", paramLabel = "FILE.gguf", description = "calibrate a real engine instead: llama.cpp's prefill and decode of this "
            + "GGUF model on this CPU, written as a catalog (the model and a calibrated 'hardware') for kvlab breakeven --catalog")
    Path engine;

    @Option(names = "--threads", defaultValue = "1", description = "with --engine: threads of the context [${DEFAULT-VALUE}]")
    int threads;

    @Option(names = "--prefix-tokens", defaultValue = "1024", description = "with --engine: the chunk prefilled into an empty context and "
            + "behind a context of four chunks (at most the model's) [${DEFAULT-VALUE}]")
    int prefixTokens;

    @Option(names = "--decode-tokens", defaultValue = "32", description = "with --engine: decode steps timed after a short and after a long context [${DEFAULT-VALUE}]")
    int decodeTokens;

    @Option(names = "--block-tokens", defaultValue = "32", description = "with --engine: tokens per fetched KV block, for timing the load of "
            + "fetched KV into the engine [${DEFAULT-VALUE}]")
    int blockTokens;

    @Override
    public Integer call() throws Exception {
        Transports known = Transports.discover();
        if (engine != null) return calibrateEngine();
        if (target != null) return calibrateTarget(known);
        if (json) throw new ParameterException(cmd.commandLine(), "--json needs --target (the local calibration writes a profile)");
        if (out == null) out = DEFAULT_OUT;
        List<String> names = new ArrayList<>(new LinkedHashSet<>(transports == null ? known.names()
                : transports.stream().map(String::strip).filter(n -> !n.isEmpty()).toList()));
        if (names.isEmpty())
            throw new ParameterException(cmd.commandLine(), "--transports names no transport (known: " + String.join(", ", known.names()) + ")");
        for (String n : names)
            if (!known.names().contains(n))
                throw new ParameterException(cmd.commandLine(), "unknown transport '" + n + "' (known: " + String.join(", ", known.names()) + ")");
        Duration d;
        LinkSpec l;
        try {
            d = DurationSpec.parse(duration);
            if (d.isZero() || d.compareTo(Duration.ofMinutes(10)) > 0) throw new IllegalArgumentException("--duration must be > 0 and <= 10m");
            l = link == null ? null : LinkSpec.parse(link);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd.commandLine(), e.getMessage(), e);
        }
        if (out.getFileName() == null || !(out.toString().endsWith(".yaml") || out.toString().endsWith(".yml")))
            throw new ParameterException(cmd.commandLine(), "--out must name a .yaml file, got " + out);
        checkWritable(out);
        PrintWriter err = cmd.commandLine().getErr();
        TransportProfile profile = Benchmarks.calibrate(known, d, l, line -> {
            err.println(line);
            err.flush();
        }, Clock.systemUTC(), names);
        profile.write(out);
        PrintWriter o = cmd.commandLine().getOut();
        o.println("wrote " + out.toAbsolutePath() + " (" + String.join(", ", profile.models().keySet()) + "; machine "
                + profile.machine().getOrDefault("host", "?") + ", " + profile.created() + ")");
        o.flush();
        return Kvlab.EXIT_OK;
    }

    /** {@code --engine}: the engine's measured prefill and decode as a catalog file (default engine-catalog.yaml). */
    private Integer calibrateEngine() throws Exception {
        if (target != null) throw new ParameterException(cmd.commandLine(), "--engine and --target calibrate different things: give one");
        if (threads < 1 || threads > 256) throw new ParameterException(cmd.commandLine(), "--threads must be in [1, 256], got " + threads);
        Path file = out == null ? Path.of("engine-catalog.yaml") : out;
        if (file.getFileName() == null || !(file.toString().endsWith(".yaml") || file.toString().endsWith(".yml")))
            throw new ParameterException(cmd.commandLine(), "--out must name a .yaml file, got " + file);
        checkWritable(file);
        GgufModelInfo info = GgufModelInfo.read(engine);
        LlamaLibrary lib;
        try {
            lib = LlamaLibrary.load();
        } catch (EngineUnavailableException e) {
            throw new BadInputException("--engine: llama.cpp is not available: " + e.getMessage());
        }
        EngineCalibration c;
        try {
            c = EngineCalibration.measure(lib, info, threads, prefixTokens, decodeTokens, blockTokens);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd.commandLine(), e.getMessage(), e);
        }
        Files.writeString(file, c.catalogYaml());
        PrintWriter o = cmd.commandLine().getOut();
        o.printf(Locale.ROOT, "%s: prefill %d tokens in %.1f ms (%.0f tokens/s), decode %.2f ms/token, %d thread(s) (real engine on CPU)%n",
                engine.getFileName(), prefixTokens, c.prefillSeconds() * 1e3, prefixTokens / c.prefillSeconds(), c.decodeSeconds() * 1e3, threads);
        var hw = c.hardwareSpec();
        o.printf(Locale.ROOT, "as a roofline: %.3g FLOP/s, %.3g B/s (efficiency 1); attention at %.3g of the compute rate in passes of %d tokens "
                        + "or more, %.3g in shorter ones; loading fetched KV %.0f us + %.3g B/s%n", hw.bf16Flops(), hw.hbmBandwidth(),
                hw.attention().efficiency(), hw.attention().smallPassTokens(), hw.attention().smallPassEfficiency(), hw.kvLoad().latencySeconds() * 1e6,
                hw.kvLoad().bytesPerSecond());
        for (EngineCalibration.Check k : c.checks())
            o.printf(Locale.ROOT, "  %-40s measured %9.3f ms, the roofline %9.3f ms (%+.0f%%)%n", k.what(), k.measured() * 1e3, k.predicted() * 1e3, k.error() * 100);
        for (String clip : c.clips()) o.println("  fit: " + clip);
        o.println("wrote " + file.toAbsolutePath() + ": kvlab breakeven --catalog " + file + " --model " + c.modelSpec().id() + " --hardware "
                + c.hardwareSpec().id() + " --dtype fp16 --link LINK");
        o.flush();
        return Kvlab.EXIT_OK;
    }

    private Integer calibrateTarget(Transports known) throws Exception {
        if (!TARGET.matcher(target).matches())
            throw new ParameterException(cmd.commandLine(), "--target must be kvlab://HOST:PORT, got '" + target + "'");
        int port = Integer.parseInt(target.substring(target.lastIndexOf(':') + 1));
        if (port < 1 || port > 65535) throw new ParameterException(cmd.commandLine(), "--target " + target + ": port must be 1..65535, got " + port);
        if (transports != null) throw new ParameterException(cmd.commandLine(), "--transports does not apply with --target (use --transport)");
        if (link != null) throw new ParameterException(cmd.commandLine(), "--link does not apply with --target (the link is what is measured)");
        if (!known.names().contains(transport) || "local".equals(transport))
            throw new ParameterException(cmd.commandLine(), "--transport: '" + transport + "' cannot reach a store in other processes");
        Duration d = parseDuration();
        if (out != null && !(out.toString().endsWith(".yaml") || out.toString().endsWith(".yml")))
            throw new ParameterException(cmd.commandLine(), "--out must name a .yaml file, got " + out);
        if (out != null) checkWritable(out);
        PrintWriter err = cmd.commandLine().getErr();
        TargetCalibrationResult r;
        BackendOptions opts = BackendOptions.defaults().withTransport(transport).withTimeout(Duration.ofSeconds(10)).withTenant("calibrate");
        String host = target.substring("kvlab://".length(), target.lastIndexOf(':'));
        try (KvBackend store = Benchmarks.openRemoteStore(target, host, port, () -> KvBackends.discover().open(target, opts))) {
            r = Benchmarks.calibrateTarget(d, line -> {
                err.println(line);
                err.flush();
            }, target, transport, known.provider(transport).emulated(), store);
        }
        if (out != null) {
            Benchmarks.targetProfile(target, transport, r, Clock.systemUTC()).write(out);
            err.println("wrote " + out.toAbsolutePath() + " (" + transport + ": use it as " + out.getFileName() + "#" + transport + ")");
        }
        PrintWriter o = cmd.commandLine().getOut();
        if (json) {
            o.println(new ObjectMapper().writeValueAsString(r));
        } else {
            o.printf(Locale.ROOT, "%s over %s: rtt %.1f us, small get %.1f us, bandwidth %.3f Gbit/s (%.1f MB/s payload, %d threads); link %s%n",
                    target, transport, r.rttUs(), r.latencyUs(), r.bandwidth() * 8 / 1e9, r.bandwidth() / 1e6, r.threads(), r.link());
        }
        o.flush();
        return Kvlab.EXIT_OK;
    }

    /** Exit 2, before measuring anything, unless the profile can be written ({@link OutputFile}). */
    static void checkWritable(Path out) {
        OutputFile.checkWritable("--out", out, "profile");
    }

    private static final java.util.regex.Pattern TARGET = java.util.regex.Pattern.compile("kvlab://[^\\s/:]+:\\d{1,5}");

    private Duration parseDuration() {
        try {
            Duration d = DurationSpec.parse(duration);
            if (d.isZero() || d.compareTo(Duration.ofMinutes(10)) > 0) throw new IllegalArgumentException("--duration must be > 0 and <= 10m");
            return d;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd.commandLine(), e.getMessage(), e);
        }
    }
}
