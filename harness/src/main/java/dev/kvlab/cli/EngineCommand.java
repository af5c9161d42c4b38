package dev.kvlab.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code kvlab engine}: the in-process llama.cpp engine (pinned library, installed by scripts/llama-lib.sh). */
@Command(name = "engine", mixinStandardHelpOptions = true,
        description = "The in-process llama.cpp engine: checks on a real engine running on this CPU.",
        subcommands = {CheckRestoreCommand.class})
public final class EngineCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return Kvlab.EXIT_BAD_INPUT;
    }
}
