package dev.kvlab.cli;

import dev.kvlab.harness.report.ReportRenderer;
import dev.kvlab.harness.report.SealedReport;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code kvlab report BUNDLE [--out DIR]}: verifies the bundle, then re-renders its {@code report.html} and
 * {@code plots/}. A bundle's seal is set only by the run that wrote it: a bundle failing verification is refused
 * (exit 1, naming the file), and in place only a rendering identical to the sealed one is written back (repairing a
 * deleted page); a different rendering goes to {@code --out DIR}. Prints the report's path last.
 */
@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        description = {
            "Verifies a bundle, then re-renders its report.html and plots/ (PNG + SVG) from its summary.json, cells/ and manifest.json. "
                    + "Prints the report path last.",
            "A bundle that fails verification is refused (exit 1, naming the file). The manifest is never rewritten: in place, "
                    + "only a rendering byte-identical to the one the run sealed is written back (e.g. a deleted report.html); "
                    + "with --out DIR the rendering goes there and the bundle is untouched."
        })
public final class ReportCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "BUNDLE", description = "a result bundle directory (results/runs/<run-id>)")
    Path bundle;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "write report.html and plots/ into DIR (outside the bundle) instead of in place")
    Path out;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        SealedReport.Outcome r;
        try {
            r = new SealedReport(new ReportRenderer()).rerender(bundle, out);
        } catch (SealedReport.Refused e) {
            for (String p : e.problems()) err.println("kvlab report: " + bundle + ": " + p);
            err.println("kvlab report: " + e.getMessage());
            err.flush();
            return Kvlab.EXIT_FAILED;
        }
        for (String f : r.restored()) err.println("kvlab report: restored " + f + " to the bytes the run sealed");
        err.flush();
        PrintWriter o = spec.commandLine().getOut();
        o.println(r.report().toAbsolutePath().normalize());
        o.flush();
        return Kvlab.EXIT_OK;
    }
}
