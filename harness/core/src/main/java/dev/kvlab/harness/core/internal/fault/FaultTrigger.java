package dev.kvlab.harness.core.internal.fault;

import dev.kvlab.harness.spi.Served;
import dev.kvlab.harness.spi.ServingListener;

/**
 * Strikes a fault at a point of the measured phase: a {@link ServingListener} in front of the measurement that
 * counts measured arrivals and, on the chosen one, runs the fault's action. Remembers when it struck, in
 * nanoseconds since the measured phase's origin, so results can mark the fault on their time series. It schedules
 * nothing on the loop (a pending event would stretch the run); faults that last check {@link #active} themselves.
 * Runs on the loop thread, like every listener.
 */
public final class FaultTrigger implements ServingListener {

    private final ServingListener inner;
    private final long origin;
    private final long strikeAt;
    private final long durationNanos;
    private final Runnable strike;
    private long arrivals;
    private volatile long struckAt = -1;

    /**
     * @param inner         the measurement
     * @param origin        the measured phase's origin on the loop clock
     * @param strikeArrival 1-based measured arrival on which to strike
     * @param durationNanos how long the fault lasts ({@link Long#MAX_VALUE}: to the end)
     * @param strike        the fault's action, run on the loop thread
     */
    public FaultTrigger(ServingListener inner, long origin, long strikeArrival, long durationNanos, Runnable strike) {
        this.inner = inner;
        this.origin = origin;
        this.strikeAt = strikeArrival;
        this.durationNanos = durationNanos;
        this.strike = strike;
    }

    /** Nanoseconds since the measured origin when the fault struck, or -1. */
    public long struckAtNanos() {
        return struckAt;
    }

    /** True when the fault has struck and, at loop time {@code now}, not yet outlived its duration. */
    public boolean active(long now) {
        long s = struckAt;
        return s >= 0 && (durationNanos == Long.MAX_VALUE || now - origin - s < durationNanos);
    }

    /** Loop time at which a lasting fault heals ({@link Long#MAX_VALUE}: never, or not struck yet). */
    public long healsAt() {
        long s = struckAt;
        return s < 0 || durationNanos == Long.MAX_VALUE ? Long.MAX_VALUE : origin + s + durationNanos;
    }

    @Override
    public void arrived(Served s, long now) {
        inner.arrived(s, now);
        if (s.warmup() || ++arrivals != strikeAt) return;
        struckAt = now - origin;
        strike.run();
    }

    @Override
    public void admitted(Served s, long now) {
        inner.admitted(s, now);
    }

    @Override
    public void fetched(Served s, long fetchNanos, long now) {
        inner.fetched(s, fetchNanos, now);
    }

    @Override
    public void handedOver(Served s, dev.kvlab.harness.spi.Handover h, long now) {
        inner.handedOver(s, h, now);
    }

    @Override
    public void firstToken(Served s, long now) {
        inner.firstToken(s, now);
    }

    @Override
    public void token(Served s, long now) {
        inner.token(s, now);
    }

    @Override
    public void completed(Served s, long now) {
        inner.completed(s, now);
    }

    @Override
    public void failed(Served s, long now) {
        inner.failed(s, now);
    }
}
