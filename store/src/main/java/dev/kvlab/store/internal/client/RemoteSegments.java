package dev.kvlab.store.internal.client;

import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TransferEngine;
import java.util.concurrent.ConcurrentHashMap;

/** The peers' segments a client has opened, by endpoint URI; a segment that failed is forgotten and reopened on next use. */
final class RemoteSegments implements AutoCloseable {

    private final TransferEngine engine;
    private final ConcurrentHashMap<String, RemoteSegment> open = new ConcurrentHashMap<>();

    RemoteSegments(TransferEngine engine) {
        this.engine = engine;
    }

    /** The opened segment for {@code endpoint}; throws (IllegalArgumentException or TransferException) when it cannot be opened. */
    RemoteSegment get(String endpoint) {
        RemoteSegment r = open.get(endpoint);
        if (r != null) return r;
        return open.computeIfAbsent(endpoint, e -> engine.openSegment(SegmentHandle.parse(e)));
    }

    void forget(String endpoint) {
        RemoteSegment r = open.remove(endpoint);
        if (r != null) {
            try {
                r.close();
            } catch (RuntimeException ignored) {
                // already broken
            }
        }
    }

    @Override
    public void close() {
        for (String e : open.keySet()) forget(e);
    }
}
