package dev.kvlab.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvlab store}: Benchmarks a KV backend (bundled store, kvlab://, redis://): ops/s and latency percentiles. Not implemented yet (issue 3). */
@Command(name = "store", mixinStandardHelpOptions = true, description = "Benchmarks a KV backend (bundled store, kvlab://, redis://): ops/s and latency percentiles. (not implemented yet)")
public final class BenchStoreCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", hidden = true)
    List<String> args;

    @Override
    public Integer call() {
        System.err.println("kvlab store: not implemented yet (issue 3)");
        return Kvlab.EXIT_FAILED;
    }
}
