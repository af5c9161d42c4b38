package dev.kvlab.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.BundleRun;
import dev.kvlab.harness.internal.bundle.BundleJson;
import dev.kvlab.harness.internal.bundle.OpenedBundle;
import dev.kvlab.harness.internal.bundle.PartialBundle;
import dev.kvlab.harness.internal.bundle.Provenance;
import dev.kvlab.harness.internal.matrix.BundleMerge;
import dev.kvlab.harness.internal.report.ReportRenderer;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kvlab merge}: the shard bundles of one matrix ({@code kvlab run --shard K/N}) into one ordinary bundle. */
@Command(name = "merge", mixinStandardHelpOptions = true,
        description = {"Merges the shard bundles of one matrix (made by kvlab run --shard K/N, on any machines) into one ordinary bundle: "
                + "checks every shard (as kvlab verify), that they are shards of the same matrix and kvlab version and hold every run "
                + "exactly once, then writes the summary (95%% CIs, paired differences), report and checksums over all runs. "
                + "Shards of --split requests (every host ran every cell, sending every N-th request) are added into one cell per run instead: "
                + "their interval histograms and counts added, percentiles and goodput recomputed, the bundle stating the cells were driven from N hosts. "
                + "Prints the bundle path last. Exit 2 when the shards do not fit together (nothing is written)."})
public final class MergeCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "SHARD", description = "shard bundle directories or .tar.gz archives")
    List<Path> shards;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "results/runs", description = "where the merged bundle is created (default: ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--json", description = "print summary.json (plus the bundle path) as one JSON object; the path also goes to stderr")
    boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter o = spec.commandLine().getOut(), err = spec.commandLine().getErr();
        List<String> args = spec.root().commandLine().getParseResult() == null ? List.of("merge")
                : spec.root().commandLine().getParseResult().originalArgs();
        BundleRun.checkOut(out); // the same --out rule as kvlab run: exit 2 before anything is opened
        Provenance prov = Provenance.capture(KvlabVersion.version(), args);
        List<OpenedBundle> opened = new ArrayList<>();
        PartialBundle.Finished fin;
        try {
            List<Path> dirs = new ArrayList<>();
            for (Path s : shards) {
                OpenedBundle b = OpenedBundle.open(s);
                opened.add(b);
                dirs.add(b.dir());
            }
            fin = BundleMerge.merge(dirs, shards, out, prov, new ReportRenderer()::render);
        } finally {
            for (OpenedBundle b : opened) b.close();
        }
        if (json) {
            ObjectNode s = (ObjectNode) BundleJson.read(fin.bundle().resolve(PartialBundle.SUMMARY_JSON));
            s.put("bundle", fin.bundle().toString());
            o.println(BundleJson.mapper().writeValueAsString(s));
            err.println(fin.bundle());
        } else {
            boolean split = BundleJson.read(fin.bundle().resolve(PartialBundle.MANIFEST)).has(BundleMerge.REQUEST_SPLIT);
            o.println("kvlab merge: " + shards.size() + " shard(s), " + fin.table().rows().size() + " runs"
                    + (split ? ", each driven from " + shards.size() + " hosts (request-split shards added into one cell)" : "")
                    + ": summary, report and checksums written");
            o.println(fin.bundle());
        }
        o.flush();
        err.flush();
        return Kvlab.EXIT_OK;
    }
}
