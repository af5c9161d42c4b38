package dev.kvlab.transport.api;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Settings for creating a {@link TransferEngine}. Every field has a default ({@link #defaults()}); a transport
 * ignores what does not apply to it and reads transport-specific extras from {@link #options()}.
 *
 * @param sliceSize          requests larger than this are split into slices that may travel in parallel [64 KiB]
 * @param connectionsPerPeer connections (or lanes) opened per peer [4]
 * @param bindHost           where servers listen [127.0.0.1; loopback unless told otherwise]
 * @param timeout            a batch that has not completed by then fails [10 s]
 * @param maxFrameBytes      upper bound of one wire frame; larger announced frames close the connection [1 MiB + header]
 * @param shmDirectory       where shared-memory segment files live [/dev/shm]
 * @param link               NIC model for emulated transports and {@link TransportModel}s, or null
 * @param authToken          shared secret required on non-loopback binds, or null; never printed
 * @param options            transport-specific extras (documented by each transport)
 */
public record TransportConfig(
        long sliceSize,
        int connectionsPerPeer,
        String bindHost,
        Duration timeout,
        int maxFrameBytes,
        Path shmDirectory,
        LinkSpec link,
        String authToken,
        Map<String, String> options) {

    public static final long DEFAULT_SLICE_SIZE = 64 * 1024;

    public TransportConfig {
        if (sliceSize <= 0) throw new IllegalArgumentException("sliceSize must be > 0, got " + sliceSize);
        if (connectionsPerPeer <= 0)
            throw new IllegalArgumentException("connectionsPerPeer must be > 0, got " + connectionsPerPeer);
        Objects.requireNonNull(bindHost, "bindHost");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero())
            throw new IllegalArgumentException("timeout must be > 0, got " + timeout);
        if (maxFrameBytes < 4096)
            throw new IllegalArgumentException("maxFrameBytes must be >= 4096, got " + maxFrameBytes);
        Objects.requireNonNull(shmDirectory, "shmDirectory");
        options = Map.copyOf(options == null ? Map.of() : options);
    }

    public static TransportConfig defaults() {
        return new TransportConfig(
                DEFAULT_SLICE_SIZE,
                4,
                "127.0.0.1",
                Duration.ofSeconds(10),
                1024 * 1024 + 64,
                Path.of("/dev/shm"),
                null,
                null,
                Map.of());
    }

    public TransportConfig withSliceSize(long v) {
        return new TransportConfig(
                v, connectionsPerPeer, bindHost, timeout, maxFrameBytes, shmDirectory, link, authToken, options);
    }

    public TransportConfig withConnectionsPerPeer(int v) {
        return new TransportConfig(
                sliceSize, v, bindHost, timeout, maxFrameBytes, shmDirectory, link, authToken, options);
    }

    public TransportConfig withBindHost(String v) {
        return new TransportConfig(
                sliceSize, connectionsPerPeer, v, timeout, maxFrameBytes, shmDirectory, link, authToken, options);
    }

    public TransportConfig withTimeout(Duration v) {
        return new TransportConfig(
                sliceSize, connectionsPerPeer, bindHost, v, maxFrameBytes, shmDirectory, link, authToken, options);
    }

    public TransportConfig withMaxFrameBytes(int v) {
        return new TransportConfig(
                sliceSize, connectionsPerPeer, bindHost, timeout, v, shmDirectory, link, authToken, options);
    }

    public TransportConfig withShmDirectory(Path v) {
        return new TransportConfig(
                sliceSize, connectionsPerPeer, bindHost, timeout, maxFrameBytes, v, link, authToken, options);
    }

    public TransportConfig withLink(LinkSpec v) {
        return new TransportConfig(
                sliceSize, connectionsPerPeer, bindHost, timeout, maxFrameBytes, shmDirectory, v, authToken, options);
    }

    public TransportConfig withAuthToken(String v) {
        return new TransportConfig(
                sliceSize, connectionsPerPeer, bindHost, timeout, maxFrameBytes, shmDirectory, link, v, options);
    }

    public TransportConfig withOptions(Map<String, String> v) {
        return new TransportConfig(
                sliceSize, connectionsPerPeer, bindHost, timeout, maxFrameBytes, shmDirectory, link, authToken, v);
    }

    /** Redacts the auth token: configs end up in logs and manifests. */
    @Override
    public String toString() {
        return "TransportConfig[sliceSize=" + sliceSize + ", connectionsPerPeer=" + connectionsPerPeer + ", bindHost="
                + bindHost
                + ", timeout=" + timeout + ", maxFrameBytes=" + maxFrameBytes + ", shmDirectory=" + shmDirectory
                + ", link=" + link
                + ", authToken=" + (authToken == null ? "none" : "<redacted>") + ", options=" + options + "]";
    }
}
