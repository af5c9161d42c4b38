package dev.kvlab.store.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when told to (nanosecond resolution, thread-safe): tests run timeouts instantly. */
public final class ManualClock extends Clock {

    private final AtomicLong nanos;

    public ManualClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    public ManualClock(Instant start) {
        nanos = new AtomicLong(start.getEpochSecond() * 1_000_000_000L + start.getNano());
    }

    public void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    @Override
    public Instant instant() {
        long n = nanos.get();
        return Instant.ofEpochSecond(Math.floorDiv(n, 1_000_000_000L), Math.floorMod(n, 1_000_000_000L));
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
