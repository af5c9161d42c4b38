package dev.kvlab.cli;

import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.bundle.BundleArchive;
import dev.kvlab.harness.bundle.BundleFootprint;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kvlab archive BUNDLE [--out FILE]}: the bundle as one {@code .tar.gz} with its {@code .sha256} beside it. */
@Command(
        name = "archive",
        mixinStandardHelpOptions = true,
        description = {
            "Writes a result bundle as one file a user can attach or copy: BUNDLE.tar.gz (the same as tar czf "
                    + "RUN.tar.gz -C OUT RUN) and BUNDLE.tar.gz.sha256 beside it (sha256sum -c checks it). kvlab verify, report, "
                    + "compare and merge read the archive directly. Prints the archive's path last."
        })
public final class ArchiveCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "BUNDLE", description = "a finished bundle directory (results/runs/<run-id>)")
    Path bundle;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            description = "the archive to write (default: BUNDLE.tar.gz beside the bundle)")
    Path out;

    @Override
    public Integer call() throws Exception {
        if (!Files.isDirectory(bundle)) throw new BadInputException(bundle + ": no such bundle directory");
        Path b = bundle.toAbsolutePath().normalize();
        Path target = out != null ? out.toAbsolutePath().normalize() : b.resolveSibling(b.getFileName() + ".tar.gz");
        if (target.startsWith(b))
            throw new BadInputException("--out " + out + ": inside the bundle (a bundle holds only its own files)");
        if (!target.getFileName().toString().endsWith(".tar.gz"))
            throw new BadInputException("--out " + out + ": the archive's name must end with .tar.gz");
        Path sum = BundleArchive.createWithChecksum(b, target);
        PrintWriter err = spec.commandLine().getErr();
        BundleFootprint.Size in = BundleFootprint.measure(b);
        err.println("kvlab archive: " + in.text() + " -> " + target.getFileName() + " "
                + BundleFootprint.mb(Files.size(target)) + "; SHA-256 in " + sum.getFileName());
        err.flush();
        PrintWriter o = spec.commandLine().getOut();
        o.println(target);
        o.flush();
        return Kvlab.EXIT_OK;
    }
}
