package dev.kvlab.cli;

import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.benchmark.Benchmarks;
import dev.kvlab.harness.experiments.BundleRun;
import dev.kvlab.harness.experiments.api.Heartbeat;
import dev.kvlab.harness.metrics.InfluxPublisher;
import dev.kvlab.harness.report.text.DemoText;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvlab demo}: the main job on embedded defaults: {@code ablations/default.yaml} (a capacity search of cold/hot x
 * none/local-only/remote-only/combined in sim, plus live cells over real TCP on the embedded store) into one bundle;
 * the capacity per configuration with its gain over no cache first, then the fixed-load cells, then (unless
 * {@code --no-real-engine}) the real-engine section ({@link RealEngineDemo}, its own bundle), the main bundle's path last.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Runs the main job on embedded defaults: ablations/default.yaml (the capacity under SLO of cold/hot x "
                    + "none/local-only/remote-only/combined on the sim clock, plus live cells over real TCP through the embedded store with a "
                    + "small model), writes one result bundle (capacity.json, summaries with CIs, HdrHistogram logs, report.html), prints the "
                    + "capacity per configuration with its gain over no cache, and the bundle path last.",
            "Takes about a minute or two on a laptop; `kvlab run ablations/default.yaml` is the same run with all of run's options."
        })
public final class DemoCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            defaultValue = "results/runs",
            description = "where the bundle is created (default: ${DEFAULT-VALUE})")
    Path out;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description =
                    "override a key of ablations/default.yaml (e.g. --set clock=sim for the capacity searches only)")
    List<String> sets = new ArrayList<>();

    @Option(names = "--resume", description = "continue an interrupted demo in --out")
    boolean resume;

    @Option(names = "--archive", description = "also write the bundle as <bundle>.tar.gz")
    boolean archive;

    @Option(
            names = "--real-engine",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "the real-engine section (on by default; --no-real-engine leaves it out): llama.cpp in-process on a small "
                            + "synthesized model, the capacity under the SLO of hot none vs combined, the twin's prediction first, its real KV through "
                            + "the store over TCP (ablations/real-kv-demo.yaml, its own bundle; about 90 s more on 2 cores)")
    boolean realEngine;

    @Mixin
    InfluxOptions influx; // issue 7

    @Override
    public Integer call() throws Exception {
        Path matrix = BundleRun.demoMatrix();
        MatrixSpec ms;
        Path bundle;
        try (Heartbeat hb = MatrixExecution.heartbeat(spec, matrix)) {
            PrintWriter err = spec.commandLine().getErr();
            ms = BundleRun.withLoopbackProfile(matrix, sets, out, resume, Benchmarks.machine(), hb, line -> {
                err.println("kvlab demo: " + line);
                err.flush();
            });
            influx.target(System::getenv);
            try (InfluxPublisher pub = influx.open(System.err)) {
                bundle = MatrixExecution.run(spec, ms, out, resume, archive, RunCommand.listeners(pub), hb);
            }
        }
        PrintWriter w = spec.commandLine().getOut();
        DemoText.print(w, bundle);
        if (realEngine) {
            try (Heartbeat hb = MatrixExecution.heartbeat(spec, matrix.resolveSibling("real-kv-demo.yaml"))) {
                RealEngineDemo.run(spec, out, hb);
            }
        }
        w.println(bundle);
        w.flush();
        return MatrixExecution.exitCode(bundle);
    }
}
