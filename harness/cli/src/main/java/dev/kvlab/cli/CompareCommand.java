package dev.kvlab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.bundle.BundleComparison;
import dev.kvlab.harness.bundle.BundleJson;
import dev.kvlab.harness.report.text.ComparisonText;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kvlab compare A B}: per-cell differences between two bundles with 95% intervals. */
@Command(
        name = "compare",
        mixinStandardHelpOptions = true,
        description =
                "Per-cell differences between two bundles (directories or .tar.gz): cells matched by their factor values, "
                        + "B - A per metric with Welch's 95%% interval across replicates; '*' marks an interval that excludes 0. "
                        + "Bundles of capacity searches: the capacity of every searched cell first, compared the same way. "
                        + "Exit 2 when no cell matches; a warning on stderr when one bundle is sim and the other live.")
public final class CompareCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "BUNDLE_A")
    Path a;

    @Parameters(index = "1", paramLabel = "BUNDLE_B")
    Path b;

    @Option(names = "--json", description = "print one JSON object (every metric)")
    boolean json;

    @Option(
            names = "--metrics",
            split = ",",
            paramLabel = "M1,M2",
            description =
                    "metrics of the table (default: latency tails, goodput, hits, fetched bytes, fallbacks, wrong hits)")
    List<String> metrics;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        ObjectNode r = BundleComparison.compareBundles(a, b);
        PrintWriter err = spec.commandLine().getErr();
        for (JsonNode w : r.path("warnings")) err.println("kvlab compare: warning: " + w.asText());
        err.flush();
        if (json) {
            out.println(BundleJson.mapper().writeValueAsString(r));
            out.flush();
            return Kvlab.EXIT_OK;
        }
        ComparisonText.print(out, r, metrics);
        return Kvlab.EXIT_OK;
    }
}
