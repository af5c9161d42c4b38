package dev.kvlab.transport.internal.tcp;

import dev.kvlab.transport.internal.common.BatchProgress;

/** Which slice of a batch a peer pool issues next: only requests that target this pool's peer. */
final class PoolCursor {
    final BatchProgress progress;
    private final PeerPool pool;
    private int request;
    private long offset;

    int sliceRequest;
    long sliceOffset;
    int sliceLength;

    PoolCursor(BatchProgress progress, PeerPool pool) {
        this.progress = progress;
        this.pool = pool;
        skip();
    }

    private void skip() {
        var b = progress.batch;
        while (request < b.size() && (b.length(request) == 0 || ((TcpRemoteSegment) b.target(request)).pool() != pool))
            request++;
    }

    boolean exhausted() {
        return request >= progress.batch.size();
    }

    /** Next slice into the slice fields; false when none is left. */
    boolean next() {
        if (exhausted()) return false;
        long len = progress.batch.length(request);
        sliceRequest = request;
        sliceOffset = offset;
        sliceLength = (int) Math.min(progress.sliceSize, len - offset);
        offset += sliceLength;
        if (offset >= len) {
            request++;
            offset = 0;
            skip();
        }
        return true;
    }
}
