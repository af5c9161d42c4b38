package dev.kvlab.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvlab run}: Runs a single-cell config or an ablation matrix. Not implemented yet (issue 5). */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Runs a single-cell config or an ablation matrix. (not implemented yet)")
public final class RunCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", hidden = true)
    List<String> args;

    @Override
    public Integer call() {
        System.err.println("kvlab run: not implemented yet (issue 5)");
        return Kvlab.EXIT_FAILED;
    }
}
