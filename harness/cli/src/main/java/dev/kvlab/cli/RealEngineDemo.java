package dev.kvlab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.engine.EngineUnavailableException;
import dev.kvlab.harness.api.gguf.GgufSynth;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.internal.bundle.BundleJson;
import dev.kvlab.harness.internal.bundle.PartialBundle;
import dev.kvlab.harness.internal.llama.LlamaLibrary;
import dev.kvlab.harness.internal.matrix.Heartbeat;
import dev.kvlab.harness.internal.matrix.MatrixParser;
import dev.kvlab.harness.internal.matrix.MatrixRunner;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The demo's real-engine section ({@code kvlab demo --real-engine}): {@code ablations/real-kv-demo.yaml} on a small
 * model synthesized with random weights (written once under the demo's output directory), llama.cpp in-process as the
 * target; prints TTFT, the remote hits and the bytes moved per fetched token of each cell, and returns its bundle.
 * Where the llama.cpp library cannot be had it says why and runs nothing.
 */
final class RealEngineDemo {

    private RealEngineDemo() {}

    /** Runs the section into {@code out}; null (with the reason printed) when llama.cpp is unavailable. */
    static Path run(CommandSpec spec, Path out, Heartbeat hb) throws Exception {
        PrintWriter w = spec.commandLine().getOut();
        try {
            hb.status("loading llama.cpp (installing the pinned library if needed)");
            LlamaLibrary.load();
        } catch (EngineUnavailableException e) {
            w.println("Real engine: skipped, llama.cpp is unavailable: " + e.getMessage());
            w.flush();
            return null;
        }
        Path model = out.resolve("models").resolve("real-kv-demo-l4-h256.gguf").toAbsolutePath();
        if (!Files.isRegularFile(model)) {
            hb.status("synthesizing the demo's model (random weights)");
            Files.createDirectories(model.getParent());
            GgufSynth.write(new SynthSpec(4, 256, 8, 2, 688, SynthSpec.DEFAULT_VOCAB, WeightType.F16, 7, 4096), model);
        }
        Path matrix = DemoCommand.defaultMatrix().resolveSibling("real-kv-demo.yaml");
        MatrixSpec ms = MatrixParser.load(matrix, List.of("target.model=" + model), null, MatrixExecution.expansion(hb));
        MatrixRunner.Outcome o = MatrixExecution.run(spec, ms, out, false, false, List.of(), hb);
        JsonNode summary = BundleJson.read(o.bundle().resolve(PartialBundle.SUMMARY_JSON));
        w.println("Real engine: llama.cpp in-process on the CPU (synthesized random weights), its real KV through kvlab's store over TCP:");
        w.printf(Locale.ROOT, "  %-34s %12s %11s %11s %12s %10s %10s%n", "cell", "ttft p50 ms", "local hit", "remote hit", "B/fetched tok",
                Columns.FALLBACKS.name(), "wrong hits");
        for (JsonNode c : summary.path("cells")) {
            JsonNode m = c.path("metrics");
            double tokens = m.path(Columns.FETCHED_TOKENS.name()).path("mean").asDouble();
            double perToken = tokens > 0 ? m.path(Columns.FETCHED_BYTES.name()).path("mean").asDouble() / tokens : Double.NaN;
            w.printf(Locale.ROOT, "  %-34s %12.1f %11.3f %11.3f %12.1f %10.0f %10.0f%n", c.path("cell").asText(),
                    m.path(Columns.TTFT_P50.name()).path("mean").asDouble(), m.path(Columns.LOCAL_HIT_RATIO.name()).path("mean").asDouble(),
                    m.path(Columns.REMOTE_HIT_RATIO.name()).path("mean").asDouble(), perToken,
                            m.path(Columns.FALLBACKS.name()).path("mean").asDouble(),
                    m.path(Columns.WRONG_HITS_USED.name()).path("mean").asDouble());
        }
        w.println("  (" + o.bundle() + ")");
        w.println();
        w.flush();
        return o.bundle();
    }
}
