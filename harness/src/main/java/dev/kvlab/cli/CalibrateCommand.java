package dev.kvlab.cli;

import dev.kvlab.cli.bench.Calibration;
import dev.kvlab.transport.api.DurationSpec;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportProfile;
import dev.kvlab.transport.api.Transports;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
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
                + "TransportModel profile (YAML, labelled with the machine and date) that sim runs load as PROFILE.yaml#<transport>.")
public final class CalibrateCommand implements Callable<Integer> {

    @Spec CommandSpec cmd;

    @Option(names = "--out", defaultValue = "transport-profile.yaml", paramLabel = "PROFILE.yaml", description = "where to write the profile (default ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--transports", split = ",", paramLabel = "NAME", description = "which transports, comma-separated (default: all)")
    List<String> transports;

    @Option(names = "--duration", defaultValue = "1s", paramLabel = "DUR", description = "measured time of each of the 4 measurements per transport (default ${DEFAULT-VALUE})")
    String duration;

    @Option(names = "--link", paramLabel = "SPEC", description = "the NIC rdma-emu emulates (default 200gbps@2us)")
    String link;

    @Override
    public Integer call() throws Exception {
        Transports known = Transports.discover();
        List<String> names = new ArrayList<>(new LinkedHashSet<>(transports == null ? known.names() : transports));
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
        PrintWriter err = cmd.commandLine().getErr();
        Calibration c = new Calibration(known, d, l, line -> {
            err.println(line);
            err.flush();
        }, Clock.systemUTC());
        TransportProfile profile = c.run(names);
        profile.write(out);
        PrintWriter o = cmd.commandLine().getOut();
        o.println("wrote " + out.toAbsolutePath() + " (" + String.join(", ", profile.models().keySet()) + "; machine "
                + profile.machine().getOrDefault("host", "?") + ", " + profile.created() + ")");
        o.flush();
        return Kvlab.EXIT_OK;
    }
}
