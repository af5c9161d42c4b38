package dev.kvlab.cli;

import dev.kvlab.harness.api.BadInputException;
import dev.kvlab.harness.internal.report.ReportRenderer;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code kvlab report BUNDLE}: re-renders a bundle's {@code report.html} and {@code plots/} from its own files, then
 * rewrites {@code manifest.json}'s file list and checksums so {@code kvlab verify} still accepts the bundle. Every
 * file is replaced atomically; nothing else in the bundle changes. Prints the report's path last.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Re-renders a bundle's report.html and plots/ (PNG + SVG) from its summary.json, cells/ and manifest.json, "
                + "then refreshes the manifest's checksums. Prints the report path last.")
public final class ReportCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "BUNDLE", description = "a result bundle directory (results/runs/<run-id>)")
    Path bundle;

    @Override
    public Integer call() {
        if (Files.isRegularFile(bundle) && bundle.getFileName().toString().endsWith(".tar.gz"))
            throw new BadInputException(bundle + ": an archived bundle; extract it (tar xzf) and report on the directory");
        if (!Files.isDirectory(bundle)) throw new BadInputException(bundle + ": no such bundle directory");
        ReportRenderer.Rendered r = new ReportRenderer().rerender(bundle);
        PrintWriter out = spec.commandLine().getOut();
        out.println(r.report().toAbsolutePath().normalize());
        out.flush();
        return Kvlab.EXIT_OK;
    }
}
