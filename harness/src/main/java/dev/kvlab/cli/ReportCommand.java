package dev.kvlab.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvlab report}: Re-renders a bundle's report.html and plots. Not implemented yet (issue 6). */
@Command(name = "report", mixinStandardHelpOptions = true, description = "Re-renders a bundle's report.html and plots. (not implemented yet)")
public final class ReportCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", hidden = true)
    List<String> args;

    @Override
    public Integer call() {
        System.err.println("kvlab report: not implemented yet (issue 6)");
        return Kvlab.EXIT_FAILED;
    }
}
