package dev.kvlab.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvlab breakeven}: Recompute vs fetch: when does fetching a cached prefix beat recomputing it? Not implemented yet (issue 5). */
@Command(name = "breakeven", mixinStandardHelpOptions = true, description = "Recompute vs fetch: when does fetching a cached prefix beat recomputing it? (not implemented yet)")
public final class BreakevenCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", hidden = true)
    List<String> args;

    @Override
    public Integer call() {
        System.err.println("kvlab breakeven: not implemented yet (issue 5)");
        return Kvlab.EXIT_FAILED;
    }
}
