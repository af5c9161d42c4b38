package dev.kvlab.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvlab calibrate}: Measures the live transports and writes a TransportModel profile for sim runs. Not implemented yet (issue 5). */
@Command(name = "calibrate", mixinStandardHelpOptions = true, description = "Measures the live transports and writes a TransportModel profile for sim runs. (not implemented yet)")
public final class CalibrateCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", hidden = true)
    List<String> args;

    @Override
    public Integer call() {
        System.err.println("kvlab calibrate: not implemented yet (issue 5)");
        return Kvlab.EXIT_FAILED;
    }
}
