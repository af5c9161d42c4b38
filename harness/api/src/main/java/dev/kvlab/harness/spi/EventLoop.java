package dev.kvlab.harness.spi;

/**
 * The clock and scheduler the serving model runs on. The model is written once against this interface: the sim
 * clock runs it in virtual time, the live clock waits out each event's time on the wall clock. Every callback
 * runs on the loop's single thread, in time order (ties in scheduling order).
 */
public interface EventLoop {

    /** Nanoseconds since the run started, in the loop's own clock. */
    long now();

    /** Runs {@code action} at {@code timeNanos} (or as soon as possible when that is already past). */
    void at(long timeNanos, Runnable action);

    default void after(long delayNanos, Runnable action) {
        at(now() + Math.max(0, delayNanos), action);
    }
}
