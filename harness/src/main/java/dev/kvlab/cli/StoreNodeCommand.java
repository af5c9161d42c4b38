package dev.kvlab.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvlab node}: Runs a storage node that contributes a segment to a master. Not implemented yet (issue 3). */
@Command(name = "node", mixinStandardHelpOptions = true, description = "Runs a storage node that contributes a segment to a master. (not implemented yet)")
public final class StoreNodeCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", hidden = true)
    List<String> args;

    @Override
    public Integer call() {
        System.err.println("kvlab node: not implemented yet (issue 3)");
        return Kvlab.EXIT_FAILED;
    }
}
