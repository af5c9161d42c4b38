package dev.kvlab.cli;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellRunner;
import dev.kvlab.harness.api.config.ConfigTree;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.internal.JsonOutput;
import dev.kvlab.harness.internal.metrics.CellTags;
import dev.kvlab.harness.internal.metrics.InfluxPublisher;
import dev.kvlab.harness.internal.metrics.RunIds;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kvlab run}: runs one configuration (one cell) on the sim or live clock and prints its summary. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Runs one configuration (a single cell) of the serving model on the sim or live clock and prints its "
                + "summary: TTFT/TPOT/ITL/TBT/E2EL percentiles from intended arrivals, SLO goodput, hit ratios, fetched bytes, "
                + "fallbacks, wrong hits used.")
public final class RunCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "CONFIG.yaml", description = "run config (YAML); every key defaults (see kvlab's defaults.yaml)")
    Path config;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "override a config key by its dotted path (repeatable), e.g. --set slo.ttft_ms=2000")
    List<String> sets = new ArrayList<>();

    @Option(names = "--mode", paramLabel = "sim|live", description = "override the config's mode") String mode;

    @Option(names = "--json", description = "print one JSON object") boolean json;

    @Mixin InfluxOptions influx; // obs: --influx* options

    @Override
    public Integer call() {
        long wall0 = System.nanoTime();
        ConfigTree tree = ConfigTree.load(config);
        for (String s : sets) tree.set(s);
        if (mode != null) tree.set("mode", mode, "--mode " + mode);
        RunConfig rc = tree.bind();
        CellResult r;
        try (InfluxPublisher pub = influx.open(System.err)) { // obs: live metrics + the summary point (single cell c01-base)
            CellTags tags = CellTags.of(RunIds.single(config), "c01-base", 0, rc, Map.of());
            r = new CellRunner().run(rc, wall0, pub == null ? CellObserver.NONE : pub.cellStarted(tags));
            if (pub != null) pub.cellFinished(tags, r.summary().columns());
        }
        double wall = (System.nanoTime() - wall0) / 1e9;
        r = r.withSummary(r.summary().withWallSeconds(wall));
        PrintWriter out = spec.commandLine().getOut();
        if (System.getenv("KVLAB_CPU") != null) {
            long cpu = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            System.err.printf(Locale.ROOT, "kvlab: main thread cpu %.3f s, wall %.3f s%n", cpu / 1e9, wall);
        }
        if (json) {
            out.println(JsonOutput.write(r.json()));
        } else {
            for (Map.Entry<String, String> e : r.describe().entrySet()) out.printf(Locale.ROOT, "%-24s %s%n", e.getKey(), e.getValue());
            out.println();
            for (Map.Entry<String, Object> e : r.json().entrySet()) {
                Object v = e.getValue();
                String s = v instanceof Double d ? (Double.isNaN(d) ? "-" : String.format(Locale.ROOT, "%.4f", d)) : String.valueOf(v);
                out.printf(Locale.ROOT, "%-24s %s%n", e.getKey(), s);
            }
        }
        out.flush();
        return r.summary().failed() > 0 && r.summary().completed() == 0 ? Kvlab.EXIT_FAILED : Kvlab.EXIT_OK;
    }
}
