package dev.kvlab.harness.api.config;

/**
 * The thresholds of the {@code cache-aware} router, as the SGLang and vLLM routers' {@code cache_aware} policy
 * names them (their defaults: 0.3, 64, 1.5). While the instances' loads (requests queued or running) are
 * balanced, a request goes to the instance holding the longest prefix of it when that prefix is more than
 * {@code cacheThreshold} of its prompt, and otherwise to the least-loaded instance; once the busiest instance has
 * more than {@code balanceAbsThreshold} requests over the idlest <em>and</em> more than
 * {@code balanceRelThreshold} times as many, it goes to the least-loaded one whatever it matches. Without the
 * thresholds a shared first block (a system prompt) draws every request to the first instance that cached it.
 *
 * @param cacheThreshold      prefix share of the prompt above which cache affinity wins, in [0, 1] [0.3]
 * @param balanceAbsThreshold requests by which the busiest may exceed the idlest before balancing overrides, >= 0 [64]
 * @param balanceRelThreshold ratio busiest / idlest that must also be exceeded, >= 1 [1.5]
 */
public record CacheAwareRouting(double cacheThreshold, int balanceAbsThreshold, double balanceRelThreshold) {

    /** SGLang's and vLLM router's defaults. */
    public static final CacheAwareRouting DEFAULT = new CacheAwareRouting(0.3, 64, 1.5);

    /** True when the loads {@code max} and {@code min} (requests) are far enough apart that balancing overrides affinity. */
    public boolean imbalanced(int max, int min) {
        return max - min > balanceAbsThreshold && max > balanceRelThreshold * min;
    }

    /** Refuses thresholds outside their ranges (above). */
    public void check(ConfigCheck check) {
        if (!(cacheThreshold >= 0 && cacheThreshold <= 1))
            throw check.bad("cluster.cache_aware.cache_threshold", "must be in [0, 1], got " + cacheThreshold);
        check.atLeast("cluster.cache_aware.balance_abs_threshold", balanceAbsThreshold, 0);
        if (!(balanceRelThreshold >= 1) || Double.isInfinite(balanceRelThreshold))
            throw check.bad(
                    "cluster.cache_aware.balance_rel_threshold",
                    "must be a finite number >= 1, got " + balanceRelThreshold);
    }
}
