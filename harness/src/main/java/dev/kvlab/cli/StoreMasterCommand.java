package dev.kvlab.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvlab master}: Runs a store master. Not implemented yet (issue 3). */
@Command(name = "master", mixinStandardHelpOptions = true, description = "Runs a store master. (not implemented yet)")
public final class StoreMasterCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", hidden = true)
    List<String> args;

    @Override
    public Integer call() {
        System.err.println("kvlab master: not implemented yet (issue 3)");
        return Kvlab.EXIT_FAILED;
    }
}
