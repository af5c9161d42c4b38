package dev.kvlab.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvlab transport}: Benchmarks a transport: throughput and per-batch latency percentiles. Not implemented yet (issue 2). */
@Command(name = "transport", mixinStandardHelpOptions = true, description = "Benchmarks a transport: throughput and per-batch latency percentiles. (not implemented yet)")
public final class BenchTransportCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", hidden = true)
    List<String> args;

    @Override
    public Integer call() {
        System.err.println("kvlab transport: not implemented yet (issue 2)");
        return Kvlab.EXIT_FAILED;
    }
}
