package dev.kvlab.cli;

import picocli.CommandLine.Command;

/** {@code kvlab store}: run the bundled store's processes. */
@Command(
        name = "store",
        mixinStandardHelpOptions = true,
        description = "Runs the bundled store's processes (a master or a storage node) and asks a master's status.",
        subcommands = {StoreMasterCommand.class, StoreNodeCommand.class, StoreStatusCommand.class})
public final class StoreCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(
                spec.commandLine(), "kvlab store needs a subcommand: master, node or status");
    }
}
