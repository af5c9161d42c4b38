package dev.kvlab.harness.api.config;

/**
 * The unmeasured warm-up pass of {@code cache_state: hot}: the workload (its first {@code fraction}) is replayed
 * first with the same keys, tiers keep what it left, then the measured pass starts.
 *
 * @param fraction share of the workload's requests replayed as warm-up, in (0, 1] [1]
 */
public record WarmupConfig(double fraction) {

    /** Refuses a fraction outside (0, 1]. */
    public void check(ConfigCheck check) {
        check.fraction("warmup.fraction", fraction);
    }
}
