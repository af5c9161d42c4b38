package dev.kvlab.transport.api;

/**
 * A measured path ({@code base}) whose first transfer after an idle spell is slower by {@code wakeSeconds}: on a
 * virtual machine an idle CPU halts, and the threads a transfer hands its work through (client I/O, the store's
 * server threads) each wait for theirs to be woken. The extra grows with the idle spell, linearly from nothing at
 * {@value #FROM_NANOS} ns to all of {@code wakeSeconds} from {@value #FULL_NANOS} ns on (measured on a 2-vCPU
 * Firecracker VM: a one-block get after 1 ms idle +0.03 ms, 5 ms +0.1 ms, 20 to 300 ms +0.3 to 0.5 ms, flat beyond
 * 20 ms); {@code wakeSeconds} itself is measured per cell (after {@value #FULL_NANOS} ns and more of idle).
 *
 * @param base        the path's cost while in use
 * @param wakeSeconds extra seconds of a transfer after a full idle spell, >= 0
 */
public record WakingTransportModel(TransportModel base, double wakeSeconds) implements TransportModel {

    /** Idle below this costs nothing extra. */
    public static final long FROM_NANOS = 1_000_000;
    /** Idle from this on costs all of {@code wakeSeconds}. */
    public static final long FULL_NANOS = 20_000_000;

    public WakingTransportModel {
        if (base == null) throw new IllegalArgumentException("a waking model needs a base model");
        if (!Double.isFinite(wakeSeconds) || wakeSeconds < 0)
            throw new IllegalArgumentException("wake seconds must be >= 0 and finite, got " + wakeSeconds);
    }

    @Override
    public String name() {
        return base.name();
    }

    @Override
    public boolean emulated() {
        return base.emulated();
    }

    @Override
    public double batchSeconds(long bytes, int requests, int sharers) {
        return base.batchSeconds(bytes, requests, sharers);
    }

    @Override
    public double wakeSeconds(long idleNanos) {
        if (idleNanos <= FROM_NANOS) return 0;
        if (idleNanos >= FULL_NANOS) return wakeSeconds;
        return wakeSeconds * (idleNanos - FROM_NANOS) / (double) (FULL_NANOS - FROM_NANOS);
    }
}
