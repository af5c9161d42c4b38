package dev.kvlab.harness.bundle;

import dev.kvlab.harness.api.input.BadInputException;
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

    /**
     * Archives {@code bundle} to {@code target} ({@link #create}) and writes {@code target.sha256} beside it, one line as
     * {@code sha256sum} prints it ({@code <hex>  <file name>}, so {@code sha256sum -c} checks the archive). Returns the
     * checksum file.
     */
    public static Path createWithChecksum(Path bundle, Path target) throws IOException {
        if (!Files.isRegularFile(bundle.resolve(PartialBundle.MANIFEST)))
            throw new dev.kvlab.harness.api.input.BadInputException(
                    bundle + ": not a finished bundle (no manifest.json)");
        create(bundle, target);
        Path sum = target.resolveSibling(target.getFileName() + ".sha256");
        Durable.replace(
                sum,
                (Sha256.of(target) + "  " + target.getFileName() + "\n")
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        return sum;
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
            while ((e = next(tar, archive)) != null) {
                if (++n > MAX_ENTRIES) throw new BadInputException(archive + ": more than " + MAX_ENTRIES + " entries");
                String name = e.getName();
                if (name.startsWith("./")) name = name.substring(2);
                if (name.isEmpty() || name.equals(".")) continue;
                Path dest = root.resolve(name).normalize();
                if (name.startsWith("/") || !dest.startsWith(root) || dest.equals(root))
                    throw new BadInputException(archive + ": entry '" + e.getName() + "' points outside the archive");
                String first = root.relativize(dest).getName(0).toString();
                if (top == null) top = first;
                else if (!top.equals(first))
                    throw new BadInputException(
                            archive + ": more than one top-level directory (" + top + ", " + first + ")");
                if (e.isDirectory()) {
                    Files.createDirectories(dest);
                    continue;
                }
                if (!e.isFile())
                    throw new BadInputException(
                            archive + ": entry '" + e.getName() + "' is not a regular file or directory");
                total += e.getSize();
                if (total > MAX_BYTES) throw new BadInputException(archive + ": more than " + MAX_BYTES + " bytes");
                Files.createDirectories(dest.getParent());
                copy(tar, dest, archive);
            }
            drain(
                    gz,
                    archive); // the gzip trailer's CRC and length: an archive cut after the tar's end is still refused
        }
        if (top == null) throw new BadInputException(archive + ": empty archive");
        Path dir = root.resolve(top);
        if (!Files.isDirectory(dir)) throw new BadInputException(archive + ": no bundle directory at the top");
        return dir;
    }

    /*
     * Reading the archive and writing the extraction fail differently: a read error (an end of file inside an entry or
     * the gzip stream, a bad header or checksum) means the archive is truncated or corrupt, bad input naming the file;
     * a write error (a full disk) is the machine's and propagates as it is.
     */

    private static TarArchiveEntry next(TarArchiveInputStream tar, Path archive) {
        try {
            return tar.getNextEntry();
        } catch (IOException e) {
            throw unreadable(archive, e);
        }
    }

    private static void copy(InputStream in, Path dest, Path archive) throws IOException {
        byte[] buf = new byte[1 << 16];
        try (OutputStream out = Files.newOutputStream(dest, StandardOpenOption.CREATE_NEW)) {
            while (true) {
                int n;
                try {
                    n = in.read(buf);
                } catch (IOException e) {
                    throw unreadable(archive, e);
                }
                if (n < 0) return;
                out.write(buf, 0, n);
            }
        }
    }

    private static void drain(InputStream in, Path archive) {
        byte[] buf = new byte[1 << 16];
        try {
            while (in.read(buf) >= 0) {
                // the bytes after the tar's end-of-archive records: padding, then the gzip trailer
            }
        } catch (IOException e) {
            throw unreadable(archive, e);
        }
    }

    static BadInputException unreadable(Path archive, IOException e) {
        String m = e.getMessage();
        if (m != null && (m.contains("Not in GZIP format") || m.contains("Input is not in the .gz format")))
            return new BadInputException(archive + ": not a .tar.gz archive", e);
        String what = e instanceof java.io.EOFException
                ? "ends early"
                : m == null ? e.getClass().getSimpleName() : m;
        return new BadInputException(archive + ": truncated or corrupt archive (" + what + ")", e);
    }
}
