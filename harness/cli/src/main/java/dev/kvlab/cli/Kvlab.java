package dev.kvlab.cli;

import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.BadOptionException;
import dev.kvlab.workloads.api.WorkloadFormatException;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code kvlab} command line. Exit codes: 0 ok, 1 run failed, 2 bad input (with FILE:LINE where there is
 * one). Every subcommand lives in its own class in this package.
 */
@Command(
        name = "kvlab",
        mixinStandardHelpOptions = true,
        versionProvider = KvlabVersion.class,
        description = "A lab for measuring distributed KV-cache serving of LLMs: workloads, a Mooncake-like store, "
                + "real transports, ablations, tail latencies, SLO goodput and reproducible result bundles.",
        subcommands = {
            DemoCommand.class,
            RunCommand.class,
            AnalyzeCommand.class,
            PlanCommand.class,
            BreakevenCommand.class,
            BenchCommand.class,
            CalibrateCommand.class,
            StoreCommand.class,
            ModelCommand.class,
            VerifyCommand.class,
            CompareCommand.class,
            MergeCommand.class,
            ArchiveCommand.class,
            ReportCommand.class,
            EngineCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Kvlab implements Runnable {

    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_BAD_INPUT = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the CLI and returns its exit code (tests call this instead of {@link #main}). */
    public static int execute(String... args) {
        return commandLine().execute(args);
    }

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Kvlab());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.registerConverter(Duration.class, OptionValues::duration);
        cl.setParameterExceptionHandler(Kvlab::badParameters);
        cl.setExecutionExceptionHandler(Kvlab::failed);
        return cl;
    }

    private static int badParameters(CommandLine.ParameterException e, String[] args) {
        PrintWriter err = e.getCommandLine().getErr();
        String msg = e.getCause() instanceof OptionValues.Refused r
                        && e.getArgSpec() instanceof CommandLine.Model.OptionSpec o
                ? o.longestName() + ": " + r.getMessage()
                : e.getMessage(); // a converter's reason, named as the commands name theirs
        err.println("kvlab: " + oneLine(msg));
        err.println("Try '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
        err.flush();
        return EXIT_BAD_INPUT;
    }

    private static int failed(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
        PrintWriter err = cl.getErr();
        if (isBadInput(e)) {
            err.println("kvlab: " + oneLine(e.getMessage()));
            if (e instanceof BadOptionException)
                err.println("Try '" + cl.getCommandSpec().qualifiedName() + " --help'."); // as for picocli's own
            err.flush();
            return EXIT_BAD_INPUT;
        }
        err.println("kvlab: " + cl.getCommandSpec().qualifiedName() + " failed: " + oneLine(describe(e)));
        if (System.getenv("KVLAB_DEBUG") != null) e.printStackTrace(err);
        else err.println("(set KVLAB_DEBUG=1 for the stack trace)");
        err.flush();
        return EXIT_FAILED;
    }

    /** An exception's message, or (an exception without one, e.g. an EOFException) its kind and its cause's message. */
    static String describe(Throwable e) {
        if (e.getMessage() != null && !e.getMessage().isBlank()) return e.getMessage();
        String s = e.getClass().getSimpleName();
        for (Throwable t = e.getCause(); t != null && t != e; t = t.getCause())
            if (t.getMessage() != null && !t.getMessage().isBlank()) return s + ": " + t.getMessage();
        return s;
    }

    /** Bad input: our own exception types, or picocli's type conversion errors surfacing at execution. */
    static boolean isBadInput(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BadInputException
                    || t instanceof WorkloadFormatException
                    || t instanceof CommandLine.ParameterException) return true;
        }
        return false;
    }

    static String oneLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
