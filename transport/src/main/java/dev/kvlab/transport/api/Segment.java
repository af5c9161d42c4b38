package dev.kvlab.transport.api;

import java.lang.foreign.MemorySegment;

/**
 * Memory this process registered with its {@link TransferEngine} so that peers may READ and WRITE it
 * one-sidedly (Mooncake: a segment contributed by a storage node). Closing it unregisters it; peers'
 * requests to it then fail with {@link TransferStatus#OUT_OF_BOUNDS} or {@link TransferStatus#FAILED}.
 */
public interface Segment extends AutoCloseable {

    /** What peers pass to {@link TransferEngine#openSegment(SegmentHandle)}. */
    SegmentHandle handle();

    /** The registered bytes themselves (off-heap; for shared-memory transports, the mapped file). */
    MemorySegment memory();

    default long size() {
        return memory().byteSize();
    }

    @Override
    void close();
}
