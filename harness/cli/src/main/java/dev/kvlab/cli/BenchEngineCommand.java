package dev.kvlab.cli;

import dev.kvlab.harness.llama.LlamaCpp;
import dev.kvlab.harness.llama.api.BenchReport;
import dev.kvlab.harness.llama.api.EngineUnavailableException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kvlab bench engine}: the in-process llama.cpp engine beside llama-server on the same model and prompts. */
@Command(
        name = "engine",
        mixinStandardHelpOptions = true,
        description =
                "The in-process llama.cpp engine (the llama.cpp target) beside llama-server (scripts/llama-server.sh's, driven by "
                        + "the openai target) in one run: same model, threads, sequences (-np), flash attention, no prompt cache, the same "
                        + "distinct prompts. Saturation throughput (all prompts at once) and low-load TTFT p50, and their ratios. The engine "
                        + "uses the prebuilt library unless KVLAB_LLAMA_BUILD=native (compiled for this CPU, as llama-server is).")
public final class BenchEngineCommand implements Callable<Integer> {

    @Option(names = "--model", required = true, paramLabel = "FILE", description = "GGUF model file")
    Path model;

    @Option(names = "--threads", defaultValue = "1", description = "threads per engine [${DEFAULT-VALUE}]")
    int threads;

    @Option(
            names = "--sequences",
            defaultValue = "4",
            description = "sequences at once (llama-server -np) [${DEFAULT-VALUE}]")
    int sequences;

    @Option(names = "--flash-attn", defaultValue = "off", description = "on | off [${DEFAULT-VALUE}]")
    String flashAttn;

    @Option(names = "--prompts", defaultValue = "60", description = "distinct prompts at saturation [${DEFAULT-VALUE}]")
    int prompts;

    @Option(
            names = "--prefix-tokens",
            defaultValue = "512",
            description = "prompt tokens before the suffix [${DEFAULT-VALUE}]")
    int prefix;

    @Option(
            names = "--suffix-tokens",
            defaultValue = "64",
            description = "suffix tokens (a prompt: BOS + prefix + suffix) [${DEFAULT-VALUE}]")
    int suffix;

    @Option(
            names = "--output-tokens",
            defaultValue = "32",
            description = "output tokens per request [${DEFAULT-VALUE}]")
    int output;

    @Option(
            names = "--low-rate",
            defaultValue = "0.5",
            description = "arrivals per second of the low load [${DEFAULT-VALUE}]")
    double lowRate;

    @Option(names = "--low-requests", defaultValue = "20", description = "requests of the low load [${DEFAULT-VALUE}]")
    int lowRequests;

    @Option(names = "--server", paramLabel = "FILE", description = "llama-server binary [scripts/llama-server.sh's]")
    Path server;

    @Option(names = "--json", description = "print one JSON object")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        BenchReport r;
        try {
            r = LlamaCpp.benchEngine(
                    model,
                    threads,
                    sequences,
                    flashAttn,
                    prompts,
                    prefix,
                    suffix,
                    output,
                    lowRate,
                    lowRequests,
                    server,
                    System.err);
        } catch (EngineUnavailableException e) {
            spec.commandLine().getErr().println("kvlab bench engine: " + e.getMessage());
            return Kvlab.EXIT_BAD_INPUT;
        }
        BenchCommand.print(spec, r, json);
        return r.failed() ? Kvlab.EXIT_FAILED : Kvlab.EXIT_OK;
    }
}
