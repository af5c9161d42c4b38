package dev.kvlab.cli;

import picocli.CommandLine.Command;

/** {@code kvlab model}: model files for the llama.cpp target. */
@Command(
        name = "model",
        mixinStandardHelpOptions = true,
        description =
                "Model files: synthesize a GGUF Llama model with random weights and a single-token-word tokenizer.",
        subcommands = {ModelSynthCommand.class})
public final class ModelCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "kvlab model needs a subcommand: synth");
    }
}
