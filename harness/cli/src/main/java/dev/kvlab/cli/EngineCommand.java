package dev.kvlab.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code kvlab engine}: the in-process llama.cpp engine (pinned library, installed by scripts/llama-lib.sh). */
@Command(
        name = "engine",
        mixinStandardHelpOptions = true,
        description = "The in-process llama.cpp engine: checks on a real engine running on this CPU.",
        subcommands = {CheckRestoreCommand.class})
public final class EngineCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "kvlab engine needs a subcommand: check-restore");
    }
}
