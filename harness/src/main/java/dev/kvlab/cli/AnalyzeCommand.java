package dev.kvlab.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvlab analyze}: Analyzes a Mooncake trace: ideal hit ratio, LRU miss-ratio curve, reuse distances. Not implemented yet (issue 4). */
@Command(name = "analyze", mixinStandardHelpOptions = true, description = "Analyzes a Mooncake trace: ideal hit ratio, LRU miss-ratio curve, reuse distances. (not implemented yet)")
public final class AnalyzeCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", hidden = true)
    List<String> args;

    @Override
    public Integer call() {
        System.err.println("kvlab analyze: not implemented yet (issue 4)");
        return Kvlab.EXIT_FAILED;
    }
}
