package dev.kvlab.transport.internal.local;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The address space of the in-process transport: the segments registered by every {@code local} engine of
 * this JVM, by {@code <engine-id>/<segment>}. It is process-wide by nature (like loopback for sockets).
 */
final class LocalDirectory {

    static final LocalDirectory JVM = new LocalDirectory();

    private final ConcurrentHashMap<String, LocalSegment> segments = new ConcurrentHashMap<>();

    void add(String address, LocalSegment s) {
        if (segments.putIfAbsent(address, s) != null)
            throw new IllegalArgumentException("segment already registered: " + address);
    }

    void remove(String address, LocalSegment s) {
        segments.remove(address, s);
    }

    LocalSegment find(String address) {
        return segments.get(address);
    }
}
