package dev.kvlab.transport.internal.shm;

import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.SegmentHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A segment backed by a file in the shared-memory directory (mode 0600), mapped into this process. The owner
 * lock (see {@link ShmFiles}) is taken before the file gets its final name, so no other process ever sees an
 * unowned segment file. Closing unlinks the file and unmaps it here; peers that still map it keep valid
 * memory but see the owner gone.
 */
final class ShmSegment implements Segment {

    private final Path file;
    private final FileChannel channel;
    private final FileLock ownerLock;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory;
    private final SegmentHandle handle;
    private volatile boolean open = true;

    ShmSegment(String transport, Path dir, String engineId, String name, long bytes) {
        if (bytes <= 0) throw new IllegalArgumentException("segment size must be > 0, got " + bytes);
        String base = ShmFiles.PREFIX + engineId + "-" + ShmFiles.safe(name);
        Path tmp = dir.resolve("." + base + ".tmp");
        this.file = ShmFiles.key(dir).resolve(base);
        if (Files.exists(file)) throw new IllegalArgumentException("segment already registered: " + name);
        FileChannel ch = null;
        try {
            Files.createDirectories(dir);
            ch = FileChannel.open(
                    tmp,
                    java.util.Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            this.ownerLock = ch.lock(ShmFiles.LOCK_POSITION, 1, false);
            ch.write(ByteBuffer.allocate(1), bytes - 1); // sparse: pages appear when first touched
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            this.memory = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
        } catch (FileAlreadyExistsException e) {
            closeQuietly(ch);
            throw new IllegalArgumentException("segment already registered: " + name, e);
        } catch (IOException e) {
            closeQuietly(ch);
            try {
                Files.deleteIfExists(tmp);
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // best effort
            }
            arena.close();
            throw new UncheckedIOException("cannot create shared-memory segment " + file + ": " + e.getMessage(), e);
        }
        this.channel = ch;
        this.handle = new SegmentHandle(transport, "", file.toString(), bytes);
        ShmFiles.OWNED.put(file, this);
    }

    Path file() {
        return file;
    }

    boolean isOpen() {
        return open;
    }

    @Override
    public SegmentHandle handle() {
        return handle;
    }

    @Override
    public MemorySegment memory() {
        return memory;
    }

    @Override
    public synchronized void close() {
        if (!open) return;
        open = false;
        ShmFiles.OWNED.remove(file, this);
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // the sweep of a later engine removes it
        }
        try {
            ownerLock.release();
        } catch (IOException ignored) {
            // closing the channel releases it too
        }
        closeQuietly(channel);
        arena.close();
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch == null) return;
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
