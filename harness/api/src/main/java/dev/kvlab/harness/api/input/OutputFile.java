package dev.kvlab.harness.api.input;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A file a command is about to write, checked before any work is done so that a long measurement is not lost at the end. */
public final class OutputFile {

    private OutputFile() {}

    /**
     * Refuses ({@link BadInputException} naming {@code option}) a {@code file} that is a directory or whose directory does
     * not exist or takes no new file (tried: such files are written through a temporary sibling, then renamed);
     * {@code what} names the kind of file in the message ("not a profile file").
     */
    public static void checkWritable(String option, Path file, String what) {
        if (Files.isDirectory(file))
            throw new BadInputException(option + " " + file + ": is a directory, not a " + what + " file");
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir))
            throw new BadInputException(option + " " + file + ": no such directory " + dir);
        try {
            Path probe = Files.createTempFile(dir, "." + file.getFileName(), ".probe");
            Files.delete(probe);
        } catch (IOException | UnsupportedOperationException e) {
            throw new BadInputException(
                    option + " " + file + ": cannot write there (" + dir + " does not take new files"
                            + (e instanceof AccessDeniedException ? ": permission denied" : "") + ")");
        }
    }

    /**
     * {@link #checkWritable} for a YAML file: first a {@link BadOptionException} (naming {@code option}) unless {@code file}'s
     * name ends in {@code .yaml} or {@code .yml}.
     */
    public static void checkWritableYaml(String option, Path file, String what) {
        if (file.getFileName() == null
                || !(file.toString().endsWith(".yaml") || file.toString().endsWith(".yml")))
            throw new BadOptionException(option + " must name a .yaml file, got " + file);
        checkWritable(option, file, what);
    }
}
