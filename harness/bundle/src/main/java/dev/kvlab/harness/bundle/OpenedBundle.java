package dev.kvlab.harness.bundle;

import dev.kvlab.harness.api.input.BadInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A bundle directory, or a {@code .tar.gz} of one extracted into a temporary directory that {@link #close} deletes. */
public final class OpenedBundle implements AutoCloseable {

    private final Path dir;
    private final Path temp;

    private OpenedBundle(Path dir, Path temp) {
        this.dir = dir;
        this.temp = temp;
    }

    public static OpenedBundle open(Path path) throws IOException {
        if (Files.isDirectory(path)) return new OpenedBundle(path, null);
        if (!Files.exists(path)) throw new BadInputException(path + ": no such bundle directory or archive");
        String n = path.getFileName().toString();
        if (!(n.endsWith(".tar.gz") || n.endsWith(".tgz")))
            throw new BadInputException(path + ": not a bundle directory nor a .tar.gz archive");
        Path tmp = Files.createTempDirectory("kvlab-bundle-");
        try {
            return new OpenedBundle(BundleArchive.extract(path, tmp), tmp);
        } catch (IOException | RuntimeException e) {
            Durable.deleteTree(tmp);
            throw e;
        }
    }

    public Path dir() {
        return dir;
    }

    @Override
    public void close() throws IOException {
        if (temp != null) Durable.deleteTree(temp);
    }
}
