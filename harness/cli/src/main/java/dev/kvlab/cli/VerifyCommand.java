package dev.kvlab.cli;

import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.bundle.BundleJson;
import dev.kvlab.harness.bundle.BundleVerifier;
import dev.kvlab.harness.bundle.OpenedBundle;
import dev.kvlab.harness.bundle.PartialBundle;
import dev.kvlab.harness.bundle.ShardManifest;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kvlab verify}: checks a bundle (directory or .tar.gz); {@code --rerun} re-executes its cells. */
@Command(
        name = "verify",
        mixinStandardHelpOptions = true,
        description = {
            "Checks a result bundle (a directory or its .tar.gz): the schema of manifest.json, summary.csv and summary.json, "
                    + "every file's SHA-256 and size, no missing or extra file, summary.csv equal to summary.json and the cells. "
                    + "Exit 1 naming the file on any mismatch.",
            "--rerun re-executes every cell from the manifest: sim cells must reproduce a bit-identical summary (fields with "
                    + "'wall' in the name excepted); live cells are compared with their 95%% intervals and reported, not failed."
        })
public final class VerifyCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "BUNDLE", description = "bundle directory or BUNDLE.tar.gz")
    Path bundle;

    @Option(names = "--rerun", description = "re-execute the cells from the manifest and compare the summaries")
    boolean rerun;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (OpenedBundle b = OpenedBundle.open(bundle)) {
            List<BundleVerifier.Problem> problems = BundleVerifier.verify(b.dir());
            if (!problems.isEmpty()) {
                for (BundleVerifier.Problem p : problems) err.println("kvlab verify: " + bundle + ": " + p);
                err.flush();
                out.println("FAILED: " + problems.size() + " problem(s), first: " + problems.get(0));
                out.flush();
                return Kvlab.EXIT_FAILED;
            }
            out.println("ok: " + bundle + ": schema, checksums and summaries agree");
            ShardManifest.Info shard =
                    ShardManifest.read(BundleJson.read(b.dir().resolve(PartialBundle.MANIFEST)));
            if (shard != null) out.println("ok: " + shard.describe());
            out.flush();
            if (!rerun) return Kvlab.EXIT_OK;
            BundleVerifier.Rerun r = BundleVerifier.rerun(b.dir(), new CellRunner(), err);
            if (!r.identical()) {
                out.println("FAILED: rerun: " + r.mismatches().size() + " of " + r.simRuns()
                        + " sim cell runs differ; first: " + r.mismatches().get(0));
                out.flush();
                return Kvlab.EXIT_FAILED;
            }
            out.println("ok: rerun: " + r.simRuns() + " sim cell runs bit-identical"
                    + (r.liveRuns() > 0
                            ? "; " + r.liveRuns()
                                    + " live cell runs re-run and compared with their intervals (reported above, not failed)"
                            : ""));
            out.flush();
            return Kvlab.EXIT_OK;
        }
    }
}
