package dev.kvlab.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvlab verify}: Checks a result bundle's schema and checksums; --rerun re-executes its sim cells. Not implemented yet (issue 6). */
@Command(name = "verify", mixinStandardHelpOptions = true, description = "Checks a result bundle's schema and checksums; --rerun re-executes its sim cells. (not implemented yet)")
public final class VerifyCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", hidden = true)
    List<String> args;

    @Override
    public Integer call() {
        System.err.println("kvlab verify: not implemented yet (issue 6)");
        return Kvlab.EXIT_FAILED;
    }
}
