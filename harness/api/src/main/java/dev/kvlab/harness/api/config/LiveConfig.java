package dev.kvlab.harness.api.config;

/**
 * Settings of the live clock.
 *
 * @param spin         the last stretch of a modelled GPU wait is spun rather than parked [50us]
 * @param ioThreads    threads issuing store operations [4]
 */
public record LiveConfig(String spin, int ioThreads) {

    /** Checks the spin and the I/O threads (1..256); returns the spin in nanoseconds. */
    public long checkedSpinNanos(ConfigCheck check) {
        long nanos = check.nanos("live.spin", spin, true);
        check.atLeast("live.io_threads", ioThreads, 1);
        if (ioThreads > 256) throw check.bad("live.io_threads", "must be <= 256");
        return nanos;
    }
}
