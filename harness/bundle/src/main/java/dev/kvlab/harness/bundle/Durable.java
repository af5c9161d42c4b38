package dev.kvlab.harness.bundle;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Crash-safe file operations: a file is written completely and fsynced before it becomes visible under its name
 * (temporary sibling, then an atomic rename, then an fsync of the directory). Nothing is rewritten in place.
 */
public final class Durable {

    private Durable() {}

    /** Writes {@code bytes} to a new file {@code file} (which must not exist) and fsyncs it. */
    public static void writeNew(Path file, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) ch.write(b);
            ch.force(true);
        }
    }

    /** Replaces (or creates) {@code file} atomically: a fsynced temporary sibling renamed over it, then the directory fsynced. */
    public static void replace(Path file, byte[] bytes) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = dir.resolve("." + file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        writeNew(tmp, bytes);
        move(tmp, file);
        fsyncDir(dir);
    }

    /** Renames atomically ({@code ATOMIC_MOVE}, replacing a file target). */
    public static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("the file system cannot rename " + from + " atomically", e);
        }
    }

    /** Renames a directory atomically; the target must not exist. */
    public static void moveDir(Path from, Path to) throws IOException {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    }

    public static void fsyncFile(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    /** fsyncs a directory (its entries: creations and renames inside it). */
    public static void fsyncDir(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // some file systems refuse to open directories for reading; nothing more can be done there
            if (!Files.isDirectory(dir)) throw e;
        }
    }

    /** Deletes a directory tree (temporary directories only). */
    public static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> w = Files.walk(dir)) {
            for (Path p : w.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
