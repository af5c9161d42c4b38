package dev.kvlab.cli;

import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.RunListener;
import dev.kvlab.harness.bundle.Provenance;
import dev.kvlab.harness.experiments.BundleRun;
import dev.kvlab.harness.experiments.api.Heartbeat;
import dev.kvlab.harness.report.text.BundleText;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** What {@code kvlab run} and {@code kvlab demo} share: run a matrix into a bundle and print it. */
final class MatrixExecution {

    private MatrixExecution() {}

    static Heartbeat heartbeat(CommandSpec spec, Path matrix) {
        return BundleRun.heartbeat(spec.commandLine().getErr(), matrix);
    }

    /** {@link #run} with sim runs on every core. */
    static Path run(
            CommandSpec spec,
            MatrixSpec matrix,
            Path out,
            boolean resume,
            boolean archive,
            List<RunListener> extra,
            Heartbeat hb)
            throws IOException {
        return run(spec, matrix, out, resume, archive, extra, BundleRun.defaultJobs(), hb);
    }

    /** As {@link BundleRun#run}, with the provenance of this command line and its error stream. */
    static Path run(
            CommandSpec spec,
            MatrixSpec matrix,
            Path out,
            boolean resume,
            boolean archive,
            List<RunListener> extra,
            int jobs,
            Heartbeat hb)
            throws IOException {
        BundleRun.checkOut(out);
        List<String> args = spec.root().commandLine().getParseResult() == null
                ? List.of(spec.name())
                : spec.root().commandLine().getParseResult().originalArgs();
        Provenance prov = Provenance.capture(KvlabVersion.version(), args);
        return BundleRun.run(
                matrix,
                out,
                resume,
                archive,
                extra,
                jobs,
                prov,
                spec.commandLine().getErr(),
                hb);
    }

    /**
     * Prints the outcome: {@code --json} one object on stdout (the cell's own JSON for a single run, else the
     * summary with the bundle path) and the bundle path on stderr; otherwise a table and the bundle path last.
     */
    static int print(CommandSpec spec, MatrixSpec matrix, Path bundle, boolean json) throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        CellRun single = matrix.singleRun() ? matrix.runs().get(0) : null;
        if (json) {
            out.println(BundleText.json(bundle, single));
            out.flush();
            err.println(bundle);
            err.flush();
        } else {
            BundleText.print(out, bundle, single);
            out.println();
            out.println(bundle);
            out.flush();
        }
        return exitCode(bundle);
    }

    /** 1 when some cell completed no request but failed some (the run is useless), else 0. */
    static int exitCode(Path bundle) throws IOException {
        return BundleText.useless(BundleText.summary(bundle)) ? Kvlab.EXIT_FAILED : Kvlab.EXIT_OK;
    }
}
