package dev.kvlab.cli;

import dev.kvlab.harness.bundle.BundleJson;
import dev.kvlab.harness.bundle.Provenance;
import dev.kvlab.harness.experiments.ShardMerge;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kvlab merge}: the shard bundles of one matrix ({@code kvlab run --shard K/N}) into one ordinary bundle. */
@Command(
        name = "merge",
        mixinStandardHelpOptions = true,
        description = {
            "Merges the shard bundles of one matrix (made by kvlab run --shard K/N, on any machines) into one ordinary bundle: "
                    + "checks every shard (as kvlab verify), that they are shards of the same matrix and kvlab version and hold every run "
                    + "exactly once, then writes the summary (95%% CIs, paired differences), report and checksums over all runs. "
                    + "Shards of --split requests (every host ran every cell, sending every N-th request) are added into one cell per run instead: "
                    + "their interval histograms and counts added, percentiles and goodput recomputed, the bundle stating the cells were driven from N hosts. "
                    + "Prints the bundle path last. Exit 2 when the shards do not fit together (nothing is written)."
        })
public final class MergeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "SHARD", description = "shard bundle directories or .tar.gz archives")
    List<Path> shards;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            defaultValue = "results/runs",
            description = "where the merged bundle is created (default: ${DEFAULT-VALUE})")
    Path out;

    @Option(
            names = "--json",
            description = "print summary.json (plus the bundle path) as one JSON object; the path also goes to stderr")
    boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter o = spec.commandLine().getOut(), err = spec.commandLine().getErr();
        List<String> args = spec.root().commandLine().getParseResult() == null
                ? List.of("merge")
                : spec.root().commandLine().getParseResult().originalArgs();
        ShardMerge.Merged m = ShardMerge.merge(shards, out, Provenance.capture(KvlabVersion.version(), args));
        if (json) {
            o.println(BundleJson.mapper().writeValueAsString(m.summaryJson()));
            err.println(m.bundle());
        } else {
            o.println("kvlab merge: " + shards.size() + " shard(s), " + m.runs() + " runs"
                    + (m.requestSplit()
                            ? ", each driven from " + shards.size()
                                    + " hosts (request-split shards added into one cell)"
                            : "")
                    + ": summary, report and checksums written");
            o.println(m.bundle());
        }
        o.flush();
        err.flush();
        return Kvlab.EXIT_OK;
    }
}
