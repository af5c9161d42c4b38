package dev.kvlab.transport.internal.tcp;

import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.SegmentHandle;

/** A peer's segment reached over tcp: the peer's connection pool, the segment's wire id and its size. */
record TcpRemoteSegment(SegmentHandle handle, PeerPool pool, int id, long size) implements RemoteSegment {
    @Override
    public void close() {}
}
