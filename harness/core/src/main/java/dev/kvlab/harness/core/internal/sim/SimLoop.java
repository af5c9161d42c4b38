package dev.kvlab.harness.core.internal.sim;

import dev.kvlab.harness.spi.EventLoop;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * Discrete-event loop in virtual time: single-threaded, no wall clock, events in (time, scheduling order).
 * {@link #clock()} is a {@link Clock} reading the virtual time, for code (the store's master) that wants one.
 */
public final class SimLoop implements EventLoop {

    /** Virtual time zero as an instant (fixed, so clock readings are the same in every run). */
    public static final Instant EPOCH = Instant.parse("2025-01-01T00:00:00Z");

    private final EventHeap heap = new EventHeap();
    private long now;
    private long events;

    @Override
    public long now() {
        return now;
    }

    @Override
    public void at(long timeNanos, Runnable action) {
        heap.add(Math.max(timeNanos, now), action);
    }

    /** Runs events until none are left. */
    public void run() {
        while (!heap.isEmpty()) {
            now = heap.peekTime();
            Runnable r = heap.poll();
            events++;
            r.run();
        }
    }

    /** Events run so far. */
    public long events() {
        return events;
    }

    /** A clock reading this loop's virtual time. */
    public Clock clock() {
        return new VirtualClock();
    }

    private final class VirtualClock extends Clock {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return EPOCH.plusNanos(now);
        }

        @Override
        public long millis() {
            return EPOCH.toEpochMilli() + now / 1_000_000L;
        }
    }
}
