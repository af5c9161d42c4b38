package dev.kvlab.harness.spi;

import dev.kvlab.workloads.api.Request;

/**
 * What serves a cell's requests, on the cell's {@link EventLoop}: the emulated serving model ({@code ServingModel}), or a real
 * engine behind a target. The workload driver submits to it; it reports every request's events, with the
 * loop's times, to its one {@link ServingListener} (the measurement, through the driver). It measures nothing.
 */
public interface Server {

    /** {@code r} arrives now; it was intended to arrive at {@code intendedNanos} on the loop's clock. */
    Served submit(Request r, long intendedNanos, boolean warmup);

    /** Switches the listener (a warm-up runs with its own). */
    void listener(ServingListener l);

    /** Requests submitted and not yet completed or failed. */
    long inFlight();

    /** Requests waiting to be admitted (a progress figure). */
    int queued();

    /** What still holds requests, one line per part, for the error when a phase ends with requests in flight. */
    String state();
}
