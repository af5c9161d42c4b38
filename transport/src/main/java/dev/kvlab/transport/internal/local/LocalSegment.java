package dev.kvlab.transport.internal.local;

import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.SegmentHandle;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A segment of the in-process transport: off-heap memory listed in the {@link LocalDirectory}. */
final class LocalSegment implements Segment {

    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory;
    private final SegmentHandle handle;
    private final String address;
    private volatile boolean open = true;

    LocalSegment(String engineId, String name, long bytes) {
        this.memory = arena.allocate(bytes, 4096);
        this.handle = new SegmentHandle("local", engineId, name, bytes);
        this.address = engineId + "/" + name;
        LocalDirectory.JVM.add(address, this);
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
        LocalDirectory.JVM.remove(address, this);
        arena.close();
    }
}
