package dev.kvlab.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.llama.api.BenchReport;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

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

    /** Prints {@code r} on {@code cmd}'s output: one JSON object of its figures with {@code json}, else its lines. */
    static void print(CommandSpec cmd, BenchReport r, boolean json) throws JsonProcessingException {
        PrintWriter out = cmd.commandLine().getOut();
        if (json) out.println(new ObjectMapper().writeValueAsString(r.fields()));
        else out.print(r.text());
        out.flush();
    }

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(
                spec.commandLine(),
                "kvlab bench needs a subcommand: "
                        + String.join(", ", spec.subcommands().keySet()));
    }
}
