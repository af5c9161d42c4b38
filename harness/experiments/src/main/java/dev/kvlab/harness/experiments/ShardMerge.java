package dev.kvlab.harness.experiments;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.bundle.BundleJson;
import dev.kvlab.harness.bundle.OpenedBundle;
import dev.kvlab.harness.bundle.PartialBundle;
import dev.kvlab.harness.bundle.Provenance;
import dev.kvlab.harness.experiments.internal.matrix.BundleMerge;
import dev.kvlab.harness.report.ReportRenderer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The shard bundles of one matrix ({@code kvlab run --shard K/N}, directories or {@code .tar.gz} archives) merged into
 * one ordinary bundle, as {@code kvlab merge} does it ({@code BundleMerge}): every shard verified, the summary, report
 * and checksums written over all runs. Shards that do not fit together are a {@code BadInputException}, and then
 * nothing is written.
 */
public final class ShardMerge {

    private ShardMerge() {}

    /** The merged bundle: its directory, how many runs it holds, and whether its shards split requests (added into one cell per run). */
    public record Merged(Path bundle, int runs, boolean requestSplit) {

        /** The bundle's {@code summary.json} with its path added as {@code bundle}. */
        public ObjectNode summaryJson() throws IOException {
            ObjectNode s = (ObjectNode) BundleJson.read(bundle.resolve(PartialBundle.SUMMARY_JSON));
            s.put("bundle", bundle.toString());
            return s;
        }
    }

    /** Merges {@code shards} into a new bundle under {@code out} (checked as {@link BundleRun#checkOut} first), labelled with {@code prov}. */
    public static Merged merge(List<Path> shards, Path out, Provenance prov) throws IOException {
        BundleRun.checkOut(out); // the same --out rule as kvlab run: exit 2 before anything is opened
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
        boolean split =
                BundleJson.read(fin.bundle().resolve(PartialBundle.MANIFEST)).has(BundleMerge.REQUEST_SPLIT);
        return new Merged(fin.bundle(), fin.table().rows().size(), split);
    }
}
