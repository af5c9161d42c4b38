package dev.kvlab.cli;

import picocli.CommandLine.Command;

/** {@code kvlab bench}: benchmarks of the parts (transports, store backends). */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description =
                "Benchmarks of the parts: transports, store backends, the store master, the in-process engine beside llama-server.",
        subcommands = {
            BenchTransportCommand.class,
            BenchStoreCommand.class,
            BenchMasterCommand.class,
            BenchEngineCommand.class,
            BenchHandoverCommand.class
        })
public final class BenchCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(
                spec.commandLine(), "kvlab bench needs a subcommand: transport, store, master or engine");
    }
}
