package dev.kvlab.harness.llama;

import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.llama.api.BenchReport;
import dev.kvlab.harness.llama.api.EngineCatalog;
import dev.kvlab.harness.llama.api.EngineUnavailableException;
import dev.kvlab.harness.llama.api.RestoreCheckResult;
import dev.kvlab.harness.llama.internal.LlamaLibrary;
import dev.kvlab.harness.llama.internal.RestoreCheck;
import dev.kvlab.harness.llama.internal.realkv.EngineBench;
import dev.kvlab.harness.llama.internal.realkv.EngineCalibration;
import dev.kvlab.harness.llama.internal.realkv.HandoverBench;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * The llama.cpp engine beside the target: what kvlab's commands run on it in-process ({@code kvlab engine check-restore},
 * {@code kvlab calibrate --engine}, {@code kvlab bench engine}, {@code kvlab bench handover}, the demo's check that the
 * library can be had). An instance is the pinned library, loaded; the benchmarks load it themselves. Bad settings are
 * {@link dev.kvlab.harness.api.input.BadInputException}s naming the option.
 */
public final class LlamaCpp {

    private final LlamaLibrary lib;

    private LlamaCpp(LlamaLibrary lib) {
        this.lib = lib;
    }

    /** Locates (installing if needed), checks and loads the pinned library; {@link EngineUnavailableException}: it cannot be had here, and why. */
    public static LlamaCpp load() {
        return new LlamaCpp(LlamaLibrary.load());
    }

    /** {@code kvlab engine check-restore}: restores within {@code tolerance} of the same-batch recompute pass (one thread). */
    public RestoreCheckResult checkRestore(Path model, int prompts, int tokens, int blockTokens, double tolerance) {
        return RestoreCheck.run(lib, model, prompts, tokens, blockTokens, tolerance);
    }

    /**
     * {@code kvlab calibrate --engine}: times {@code model} with {@code threads} threads (chunks of {@code prefixTokens},
     * {@code decodeSteps} decode steps, fetched blocks of {@code blockTokens}) and fits a roofline to it.
     * {@link IllegalArgumentException}: settings the measurement cannot take, in words.
     */
    public EngineCatalog calibrate(
            GgufModelInfo model, int threads, int prefixTokens, int decodeSteps, int blockTokens) {
        EngineCalibration c = EngineCalibration.measure(lib, model, threads, prefixTokens, decodeSteps, blockTokens);
        return new EngineCatalog(c.catalogYaml(), c.text(), c.modelSpec(), c.hardwareSpec());
    }

    /**
     * The largest chunk a calibration of {@code model} can time as it says (into an empty context and behind a context
     * of at least one chunk, then {@code decodeSteps} steps, within the model's context): 0 when none fits.
     */
    public static int largestCalibrationChunk(GgufModelInfo model, int decodeSteps) {
        return EngineCalibration.largestChunk(model, decodeSteps);
    }

    /**
     * {@code kvlab bench engine}: the in-process engine beside llama-server ({@code server}; null: scripts/llama-server.sh's)
     * on the same model, threads, sequences, flash attention ({@code on|off}) and prompts, at saturation and at a low
     * load; progress lines to {@code progress}.
     */
    public static BenchReport benchEngine(
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
            Path server,
            PrintStream progress)
            throws IOException, InterruptedException {
        EngineBench.Settings s = new EngineBench.Settings(
                model,
                threads,
                sequences,
                flashAttn,
                prompts,
                prefixTokens,
                suffixTokens,
                outputTokens,
                lowRate,
                lowRequests,
                server);
        EngineBench.Result r = EngineBench.run(s, progress);
        boolean failed = r.sides().stream().anyMatch(d -> d.failed() > 0 || d.completed() == 0);
        return new BenchReport(r.figures(), r.text(), failed);
    }

    /**
     * {@code kvlab bench handover}: a PD handover of a {@code tokens}-token prompt over {@code transport} (rdma-emu's NIC:
     * {@code link}), part by part, beside the transport's own WRITE and the restore path; medians over {@code reps}.
     */
    public static BenchReport benchHandover(
            Path model,
            int tokens,
            int blockTokens,
            String transport,
            String link,
            int reps,
            int threads,
            PrintStream log) {
        HandoverBench.Result r = HandoverBench.run(
                new HandoverBench.Settings(model, tokens, blockTokens, transport, link, reps, threads), log);
        return new BenchReport(r.figures(), r.text(), false);
    }
}
