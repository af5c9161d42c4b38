package dev.kvlab.cli;

import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.bundle.CapacityFile;
import dev.kvlab.harness.experiments.BundleRun;
import dev.kvlab.harness.experiments.api.Heartbeat;
import dev.kvlab.harness.llama.LlamaCpp;
import dev.kvlab.harness.llama.api.EngineUnavailableException;
import dev.kvlab.harness.report.text.BundleText;
import dev.kvlab.harness.report.text.CapacityText;
import dev.kvlab.harness.report.text.RealEngineText;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The demo's real-engine section ({@code kvlab demo --real-engine}): {@code ablations/real-kv-demo.yaml} on a small
 * model synthesized with random weights (written once under the demo's output directory), llama.cpp in-process as the
 * target: the lab's question on real compute, each cache configuration's capacity under the SLO with the twin's
 * prediction beside it (a cut of {@code ablations/real-kv-capacity.yaml}), then the wrong hits and bytes moved per
 * fetched token of its runs; returns its bundle. Where the llama.cpp library cannot be had it says why and runs nothing.
 */
final class RealEngineDemo {

    private RealEngineDemo() {}

    /** Runs the section into {@code out}; null (with the reason printed) when llama.cpp is unavailable. */
    static Path run(CommandSpec spec, Path out, Heartbeat hb) throws Exception {
        PrintWriter w = spec.commandLine().getOut();
        try {
            hb.status("loading llama.cpp (installing the pinned library if needed)");
            LlamaCpp.load();
        } catch (EngineUnavailableException e) {
            w.println("Real engine: skipped, llama.cpp is unavailable: " + e.getMessage());
            w.flush();
            return null;
        }
        MatrixSpec ms = BundleRun.realEngineDemoMatrix(BundleRun.demoMatrix(), out, hb);
        Path bundle = MatrixExecution.run(spec, ms, out, false, false, List.of(), hb);
        java.util.Optional<com.fasterxml.jackson.databind.JsonNode> capacity = CapacityFile.read(bundle);
        if (capacity.isPresent()) {
            RealEngineText.capacityHeading(w, capacity.get());
            CapacityText.print(w, capacity.get());
            RealEngineText.totals(w, BundleText.summary(bundle));
        } else {
            RealEngineText.print(w, BundleText.summary(bundle));
        }
        w.println("  (" + bundle + ")");
        w.println();
        w.flush();
        return bundle;
    }
}
