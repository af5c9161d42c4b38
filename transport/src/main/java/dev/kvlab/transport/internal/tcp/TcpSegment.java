package dev.kvlab.transport.internal.tcp;

import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.SegmentHandle;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * A segment served by this engine's tcp server: page-aligned off-heap memory and a wire id that is never
 * reused (a stale id finds nothing instead of someone else's bytes).
 */
final class TcpSegment implements Segment {

    private final TcpServer server;
    final int id;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory;
    private final SegmentHandle handle;
    private volatile boolean open = true;

    TcpSegment(TcpServer server, int id, String name, long bytes, String address) {
        this.server = server;
        this.id = id;
        this.memory = arena.allocate(bytes, 4096);
        this.handle = new SegmentHandle("tcp", address, name, bytes);
    }

    boolean isOpen() {
        return open;
    }

    TcpServer server() {
        return server;
    }

    @Override
    public SegmentHandle handle() {
        return handle;
    }

    @Override
    public MemorySegment memory() {
        return memory;
    }

    /**
     * Unregisters, then frees the memory. Socket I/O in progress on it holds the memory; after a grace period the
     * server aborts the connections still using it, so closing never waits on a stalled peer.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (!open) return;
            open = false;
        }
        server.unregister(this);
        for (int attempt = 0; ; attempt++) {
            try {
                arena.close();
                return;
            } catch (IllegalStateException busy) {
                if (attempt == 20) server.abortConnectionsUsing(this);
                if (attempt > 2000)
                    throw new IllegalStateException("segment " + handle + " is still in use by socket I/O", busy);
                LockSupport.parkNanos(1_000_000);
            }
        }
    }
}
