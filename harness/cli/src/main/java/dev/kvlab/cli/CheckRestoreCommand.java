package dev.kvlab.cli;

import dev.kvlab.harness.api.ReportJson;
import dev.kvlab.harness.llama.LlamaCpp;
import dev.kvlab.harness.llama.api.EngineUnavailableException;
import dev.kvlab.harness.llama.api.RestoreCheckReport;
import dev.kvlab.harness.llama.api.RestoreCheckResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kvlab engine check-restore}: a restored KV state continues exactly as a recompute does. */
@Command(
        name = "check-restore",
        mixinStandardHelpOptions = true,
        description =
                "For deterministic prompts: prefill, take the sequence's KV state, split it into blocks, assemble "
                        + "and restore it, prefill the rest, greedy-decode; compare with a recompute of the same tokens in the same "
                        + "batches (prefix, then tail), greedy-decoded. Also prints a one-pass recompute's difference: the engine's own "
                        + "floating-point noise floor (other batch shapes round differently), reported, not judged. Exit 0 when every "
                        + "restore continues as its same-batch recompute with first-token logits within --tolerance, 1 otherwise, 2 for "
                        + "a bad model file or when the llama.cpp library cannot be installed or loaded.")
public final class CheckRestoreCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--model", required = true, paramLabel = "FILE", description = "GGUF model file")
    Path model;

    @Option(names = "--prompts", defaultValue = "5", description = "prompts [${DEFAULT-VALUE}]")
    int prompts;

    @Option(names = "--tokens", defaultValue = "32", description = "greedy tokens after each prompt [${DEFAULT-VALUE}]")
    int tokens;

    @Option(names = "--block-tokens", defaultValue = "16", description = "tokens per KV block [${DEFAULT-VALUE}]")
    int blockTokens;

    @Option(
            names = "--tolerance",
            defaultValue = "0",
            description = "largest first-token logit difference against the same-batch "
                    + "recompute that passes [${DEFAULT-VALUE}: bit-exact]")
    double tolerance;

    @Option(names = "--json", description = "print one JSON object")
    boolean json;

    @Override
    public Integer call() {
        LlamaCpp lib;
        try {
            lib = LlamaCpp.load();
        } catch (EngineUnavailableException e) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("kvlab: " + e.getMessage());
            err.flush();
            return Kvlab.EXIT_BAD_INPUT;
        }
        RestoreCheckResult r = lib.checkRestore(model, prompts, tokens, blockTokens, tolerance);
        PrintWriter w = spec.commandLine().getOut();
        if (json) w.println(ReportJson.write(RestoreCheckReport.of(r)));
        else RestoreCheckReport.print(w, r);
        w.flush();
        return r.allEqual() ? Kvlab.EXIT_OK : Kvlab.EXIT_FAILED;
    }
}
