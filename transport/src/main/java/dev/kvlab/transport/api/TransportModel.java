package dev.kvlab.transport.api;

/**
 * The cost of the transfer API as a function, for simulation: how long a batch takes given its bytes, its
 * number of requests and how many transfers share the link at the same time. Implementations are pure and
 * deterministic. {@code kvlab calibrate} writes profiles of measured live transports that load as models.
 */
public interface TransportModel {

    /** Profile name, e.g. {@code tcp-loopback-calibrated} or {@code 4x200gbps}. */
    String name();

    /** True unless the figures were measured on a real link by {@code kvlab calibrate}. */
    boolean emulated();

    /**
     * Seconds from submitting a batch of {@code requests} requests moving {@code bytes} in total until it
     * completes, while {@code sharers} transfers (this one included, >= 1) use the link concurrently.
     */
    double batchSeconds(long bytes, int requests, int sharers);

    /**
     * Seconds a transfer pays beyond {@link #batchSeconds} when it starts after nothing has moved on the path for
     * {@code idleNanos}: the threads and CPUs of a measured path had gone to sleep and are woken one by one. 0 for a
     * modelled link (the default), and for a path in use ({@code idleNanos} 0).
     */
    default double wakeSeconds(long idleNanos) {
        return 0;
    }
}
