package dev.kvlab.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvlab demo}: Runs the main job on embedded defaults (ablations/default.yaml) and prints the bundle path last. Not implemented yet (issue 6). */
@Command(name = "demo", mixinStandardHelpOptions = true, description = "Runs the main job on embedded defaults (ablations/default.yaml) and prints the bundle path last. (not implemented yet)")
public final class DemoCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", hidden = true)
    List<String> args;

    @Override
    public Integer call() {
        System.err.println("kvlab demo: not implemented yet (issue 6)");
        return Kvlab.EXIT_FAILED;
    }
}
