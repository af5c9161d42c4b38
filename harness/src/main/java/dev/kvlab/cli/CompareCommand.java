package dev.kvlab.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvlab compare}: Per-cell differences between two bundles, with confidence intervals. Not implemented yet (issue 6). */
@Command(name = "compare", mixinStandardHelpOptions = true, description = "Per-cell differences between two bundles, with confidence intervals. (not implemented yet)")
public final class CompareCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", hidden = true)
    List<String> args;

    @Override
    public Integer call() {
        System.err.println("kvlab compare: not implemented yet (issue 6)");
        return Kvlab.EXIT_FAILED;
    }
}
