package dev.kvlab.transport.internal.shm;

import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TransferException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A peer's shared-memory segment mapped into this process: copies to and from it need no help from the owner.
 * The owner's liveness is read from its lock (another process) or from the owning segment (this process).
 */
final class ShmMapping implements RemoteSegment {

    private final SegmentHandle handle;
    private final MemorySegment memory;
    private final ShmSegment inProcessOwner;
    private final FileChannel channel;
    private final Arena arena;
    private volatile boolean open = true;

    private ShmMapping(SegmentHandle handle, MemorySegment memory, ShmSegment owner, FileChannel channel, Arena arena) {
        this.handle = handle;
        this.memory = memory;
        this.inProcessOwner = owner;
        this.channel = channel;
        this.arena = arena;
    }

    static ShmMapping open(SegmentHandle handle, Path dir) {
        Path file = ShmFiles.key(Path.of(handle.segment()));
        if (!ShmFiles.isSegmentFile(dir, file))
            throw new IllegalArgumentException("not a segment file of " + dir + ": " + handle
                    + " (shared-memory handles name kvlab-* files in the configured shm directory)");
        ShmSegment owner = ShmFiles.OWNED.get(file);
        if (owner != null) {
            if (!owner.isOpen()) throw new TransferException("shared-memory segment " + handle + " is closed");
            if (owner.size() < handle.size())
                throw new TransferException("shared-memory segment " + handle + " has " + owner.size()
                        + " bytes, the handle says " + handle.size());
            return new ShmMapping(handle, owner.memory().asSlice(0, handle.size()), owner, null, null);
        }
        FileChannel ch = null;
        Arena arena = Arena.ofShared();
        try {
            ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            if (!ShmFiles.ownerAlive(ch))
                throw new TransferException("the owner of shared-memory segment " + handle + " is gone");
            long size = ch.size();
            if (size < handle.size())
                throw new TransferException("shared-memory segment " + handle + " has " + size
                        + " bytes, the handle says " + handle.size());
            MemorySegment mem = ch.map(FileChannel.MapMode.READ_WRITE, 0, handle.size(), arena);
            return new ShmMapping(handle, mem, null, ch, arena);
        } catch (NoSuchFileException e) {
            cleanup(ch, arena);
            throw new TransferException("no shared-memory segment " + handle + " (file " + file + " does not exist)");
        } catch (IOException e) {
            cleanup(ch, arena);
            throw new TransferException("cannot map shared-memory segment " + handle + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            cleanup(ch, arena);
            throw e;
        }
    }

    private static void cleanup(FileChannel ch, Arena arena) {
        try {
            if (ch != null) ch.close();
        } catch (IOException ignored) {
            // nothing to do
        }
        arena.close();
    }

    MemorySegment memory() {
        return memory;
    }

    /** True while the owner still registers the segment (one fcntl for another process' segment). */
    boolean ownerAlive() {
        if (!open) return false;
        if (inProcessOwner != null) return inProcessOwner.isOpen();
        try {
            return ShmFiles.ownerAlive(channel);
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public SegmentHandle handle() {
        return handle;
    }

    @Override
    public long size() {
        return memory.byteSize();
    }

    @Override
    public synchronized void close() {
        if (!open) return;
        open = false;
        if (channel != null) cleanup(channel, arena);
    }
}
