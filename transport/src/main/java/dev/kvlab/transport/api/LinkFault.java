package dev.kvlab.transport.api;

import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link FaultableEngine} does to the batches that pass through it: every batch completes
 * {@code delay} (± up to {@code jitter}) later than the real transport finished it, and with probability
 * {@code loss} a batch is lost as if its connection dropped (it fails with {@code FAILED}; half of the lost
 * batches are dropped before anything moved, half after the bytes moved but before the completion arrived, so
 * callers must not trust bytes of a failed batch). {@link #NONE} passes everything through untouched.
 *
 * @param delay  added latency per batch (>= 0)
 * @param jitter uniform extra latency in {@code [0, jitter]} (>= 0)
 * @param loss   probability in {@code [0, 1]} that a batch is lost
 * @param readsOnly the fault touches only batches that read (a slowed read path), writes pass untouched
 */
public record LinkFault(Duration delay, Duration jitter, double loss, boolean readsOnly) {

    public static final LinkFault NONE = new LinkFault(Duration.ZERO, Duration.ZERO, 0, false);

    public LinkFault(Duration delay, Duration jitter, double loss) {
        this(delay, jitter, loss, false);
    }

    public LinkFault {
        Objects.requireNonNull(delay, "delay");
        Objects.requireNonNull(jitter, "jitter");
        if (delay.isNegative() || jitter.isNegative())
            throw new IllegalArgumentException("link fault delay and jitter must be >= 0");
        if (!(loss >= 0 && loss <= 1))
            throw new IllegalArgumentException("link fault loss must be in [0, 1], got " + loss);
    }

    public static LinkFault delay(Duration d) {
        return new LinkFault(d, Duration.ZERO, 0);
    }

    /** Reads complete {@code d} later; writes are untouched. */
    public static LinkFault readDelay(Duration d) {
        return new LinkFault(d, Duration.ZERO, 0, true);
    }

    public static LinkFault loss(double p) {
        return new LinkFault(Duration.ZERO, Duration.ZERO, p);
    }

    public boolean none() {
        return delay.isZero() && jitter.isZero() && loss == 0;
    }

    @Override
    public String toString() {
        if (none()) return "none";
        StringBuilder sb = new StringBuilder();
        if (!delay.isZero() || !jitter.isZero()) sb.append("delay ").append(DurationSpec.format(delay));
        if (!jitter.isZero())
            sb.append(" +[0, ").append(DurationSpec.format(jitter)).append(']');
        if (loss > 0) sb.append(sb.isEmpty() ? "" : ", ").append("loss ").append(loss);
        if (readsOnly) sb.append(" (reads only)");
        return sb.toString();
    }
}
