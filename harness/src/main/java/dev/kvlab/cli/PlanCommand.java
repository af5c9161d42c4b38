package dev.kvlab.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvlab plan}: KV sizing for a model: bytes per token, per TP rank, per request, what fits. Not implemented yet (issue 5). */
@Command(name = "plan", mixinStandardHelpOptions = true, description = "KV sizing for a model: bytes per token, per TP rank, per request, what fits. (not implemented yet)")
public final class PlanCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", hidden = true)
    List<String> args;

    @Override
    public Integer call() {
        System.err.println("kvlab plan: not implemented yet (issue 5)");
        return Kvlab.EXIT_FAILED;
    }
}
