package dev.kvlab.transport.internal.shm;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Conventions for segment files in the shared-memory directory, and the registry of the files this JVM owns.
 *
 * <p>A segment file is {@code kvlab-<engine>-<name>}; its owner holds an exclusive POSIX lock on one byte at
 * {@link #LOCK_POSITION} (beyond the data) for as long as the segment is registered. The kernel drops that lock
 * when the owner process dies, so any process can tell a live owner from a dead one with one {@code fcntl}.
 * POSIX locks belong to a process and are released when that process closes <em>any</em> descriptor of the
 * file, so a JVM that owns a file never opens it a second time: in-process peers use the owner's mapping
 * through {@link #OWNED}.
 */
final class ShmFiles {

    static final long LOCK_POSITION = Long.MAX_VALUE - 1;
    static final String PREFIX = "kvlab-";

    /** Files owned by this process (POSIX locks are per process, so this registry is too). */
    static final ConcurrentHashMap<Path, ShmSegment> OWNED = new ConcurrentHashMap<>();

    private ShmFiles() {}

    /** The registry key of a segment file: its real path (symbolic links resolved), or the normalized path if it is gone. */
    static Path key(Path file) {
        try {
            return file.toRealPath();
        } catch (java.io.IOException | SecurityException e) {
            return file.toAbsolutePath().normalize();
        }
    }

    /** A file name part made of safe characters only. */
    static String safe(String name) {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("segment name is empty");
        if (name.length() > 200)
            throw new IllegalArgumentException("segment name is longer than 200 characters: " + name);
        StringBuilder b = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            b.append(Character.isLetterOrDigit(c) && c < 128 || c == '-' || c == '_' || c == '.' ? c : '_');
        }
        return b.toString();
    }

    /** True when {@code file} is a segment file inside {@code dir}; handles naming anything else are refused. */
    static boolean isSegmentFile(Path dir, Path file) {
        Path parent = key(file).getParent();
        return parent != null
                && parent.equals(key(dir))
                && file.getFileName().toString().startsWith(PREFIX);
    }

    /**
     * True while some process holds the owner lock. Never call this for a file this JVM owns (see class doc).
     */
    static boolean ownerAlive(FileChannel channel) throws IOException {
        FileLock probe;
        try {
            probe = channel.tryLock(LOCK_POSITION, 1, true);
        } catch (OverlappingFileLockException e) {
            return true; // another thread of this process is probing right now
        }
        if (probe == null) return true;
        probe.release();
        return false;
    }

    /** Deletes segment files whose owner died without cleaning up (SIGKILL). Best effort. */
    static int sweepOrphans(Path dir) {
        int removed = 0;
        if (!Files.isDirectory(dir)) return 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*")) {
            for (Path f : files) {
                if (OWNED.containsKey(key(f)) || !Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS))
                    continue;
                try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                    FileLock l = ch.tryLock(LOCK_POSITION, 1, false);
                    if (l != null) {
                        Files.deleteIfExists(f);
                        removed++;
                        l.release();
                    }
                } catch (IOException | OverlappingFileLockException | SecurityException ignored) {
                    // not ours to judge
                }
            }
        } catch (IOException ignored) {
            // directory unreadable: nothing to sweep
        }
        return removed;
    }
}
