package dev.kvlab.harness.spi;

import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;

/**
 * The framework's wall clock for a real target ({@link TargetFramework#liveClock}): an {@link EventLoop} that waits
 * out each event's time (parking, then spinning a tail) and measures its own overhead, so that a target's figures of
 * the harness's cost come from the one loop every live cell runs on.
 */
public interface LiveClock extends EventLoop {

    /** Runs {@code action} on the loop thread as soon as possible (thread-safe: a target's I/O threads report through it). */
    void post(Runnable action);

    /** Runs events until {@code done} holds and nothing is scheduled or posted. */
    void run(BooleanSupplier done);

    /** The tail of each wait that is spun now (ns). */
    long spinNanos();

    /** Starts the figures over (lag, time per event, events): the measured phase's own, not the warm-up's. */
    void resetFigures();

    /** How late events ran after their scheduled time (µs). */
    Histogram lag();

    /** Wall time the loop thread spent running events and posted results. */
    long busyNanos();

    /** CPU time the loop thread spent running events and posted results. */
    long workCpuNanos();
}
