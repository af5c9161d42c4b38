package dev.kvlab.transport.api;

/**
 * A peer's segment opened for transfers (a connection pool for {@code tcp}, a mapping for {@code shm}).
 * Obtained from {@link TransferEngine#openSegment(SegmentHandle)}; cheap to keep and reuse. Closing it
 * releases what opening it took.
 */
public interface RemoteSegment extends AutoCloseable {

    SegmentHandle handle();

    default long size() {
        return handle().size();
    }

    @Override
    void close();
}
