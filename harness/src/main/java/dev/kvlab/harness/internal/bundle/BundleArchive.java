package dev.kvlab.harness.internal.bundle;

import dev.kvlab.harness.api.BadInputException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;

/**
 * A bundle as {@code <run-id>.tar.gz}: one top-level directory named after the run, regular files only (the same
 * archive {@code tar czf RUN.tar.gz -C OUT RUN} makes). Extraction refuses absolute paths, {@code ..}, links and
 * devices, and caps the number and total size of entries.
 */
public final class BundleArchive {

    private static final long MAX_BYTES = 16L << 30;
    private static final int MAX_ENTRIES = 1_000_000;

    private BundleArchive() {}

    /** Archives {@code bundle} to {@code target} (written to a temporary sibling, fsynced, renamed). */
    public static Path create(Path bundle, Path target) throws IOException {
        Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        String top = bundle.getFileName().toString();
        try (OutputStream fo = Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW);
             OutputStream bo = new BufferedOutputStream(fo, 1 << 16);
             GzipCompressorOutputStream gz = new GzipCompressorOutputStream(bo);
             TarArchiveOutputStream tar = new TarArchiveOutputStream(gz)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            for (Path p : Manifest.listFiles(bundle)) {
                TarArchiveEntry e = new TarArchiveEntry(p.toFile(), top + "/" + Manifest.relative(bundle, p));
                tar.putArchiveEntry(e);
                Files.copy(p, tar);
                tar.closeArchiveEntry();
            }
            tar.finish();
        }
        Durable.fsyncFile(tmp);
        Durable.move(tmp, target);
        Durable.fsyncDir(target.toAbsolutePath().getParent());
        return target;
    }

    /** Extracts {@code archive} into the empty directory {@code into} and returns the bundle directory inside it. */
    public static Path extract(Path archive, Path into) throws IOException {
        Path root = into.toAbsolutePath().normalize();
        String top = null;
        long total = 0;
        int n = 0;
        try (InputStream fi = new BufferedInputStream(Files.newInputStream(archive), 1 << 16);
             GzipCompressorInputStream gz = new GzipCompressorInputStream(fi);
             TarArchiveInputStream tar = new TarArchiveInputStream(gz)) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                if (++n > MAX_ENTRIES) throw new BadInputException(archive + ": more than " + MAX_ENTRIES + " entries");
                String name = e.getName();
                if (name.startsWith("./")) name = name.substring(2);
                if (name.isEmpty() || name.equals(".")) continue;
                Path dest = root.resolve(name).normalize();
                if (name.startsWith("/") || !dest.startsWith(root) || dest.equals(root))
                    throw new BadInputException(archive + ": entry '" + e.getName() + "' points outside the archive");
                String first = root.relativize(dest).getName(0).toString();
                if (top == null) top = first;
                else if (!top.equals(first)) throw new BadInputException(archive + ": more than one top-level directory (" + top + ", " + first + ")");
                if (e.isDirectory()) {
                    Files.createDirectories(dest);
                    continue;
                }
                if (!e.isFile()) throw new BadInputException(archive + ": entry '" + e.getName() + "' is not a regular file or directory");
                total += e.getSize();
                if (total > MAX_BYTES) throw new BadInputException(archive + ": more than " + MAX_BYTES + " bytes");
                Files.createDirectories(dest.getParent());
                Files.copy(tar, dest);
            }
        } catch (IOException ex) {
            if (ex.getMessage() != null && (ex.getMessage().contains("Not in GZIP format") || ex.getMessage().contains("Input is not in the .gz format")))
                throw new BadInputException(archive + ": not a .tar.gz archive");
            throw ex;
        }
        if (top == null) throw new BadInputException(archive + ": empty archive");
        Path dir = root.resolve(top);
        if (!Files.isDirectory(dir)) throw new BadInputException(archive + ": no bundle directory at the top");
        return dir;
    }
}
