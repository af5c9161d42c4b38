package dev.kvlab.harness.bundle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A bundle's size on disk as {@code du} counts it: every file rounded up to whole 4 KiB blocks and every directory one
 * block (a small file still takes a block, which is why a probe's run keeps one file), and its number of files.
 */
public final class BundleFootprint {

    /** The file system block {@code du} counts a small file and a directory as. */
    public static final long BLOCK = 4096;

    private BundleFootprint() {}

    /**
     * @param onDisk bytes in whole blocks (files and directories)
     * @param bytes  the files' own bytes
     * @param files  regular files
     * @param dirs   directories, the bundle's own included
     */
    public record Size(long onDisk, long bytes, long files, long dirs) {
        /** {@code 34.1 MB on disk in 2,211 files}. */
        public String text() {
            return String.format(
                    Locale.ROOT,
                    "%s on disk in %,d files (%s of data, %,d directories)",
                    mb(onDisk),
                    files,
                    mb(bytes),
                    dirs);
        }
    }

    /** {@code bytes} in MB (2^20 bytes), one decimal. */
    public static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1048576.0);
    }

    /** Whole blocks {@code bytes} take. */
    public static long blocks(long bytes) {
        return (bytes + BLOCK - 1) / BLOCK * BLOCK;
    }

    public static Size measure(Path dir) {
        long disk = 0, bytes = 0, files = 0, dirs = 0;
        try (Stream<Path> w = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) w::iterator) {
                if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    dirs++;
                    disk += BLOCK;
                } else if (Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    long n = Files.size(p);
                    files++;
                    bytes += n;
                    disk += blocks(n);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot measure " + dir + ": " + e.getMessage(), e);
        }
        return new Size(disk, bytes, files, dirs);
    }
}
