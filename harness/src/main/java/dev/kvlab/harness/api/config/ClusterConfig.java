package dev.kvlab.harness.api.config;

/**
 * The serving instances.
 *
 * @param instances        engine instances, each {@code tp} GPUs [4]
 * @param tp               tensor-parallel GPUs per instance [1]
 * @param router           {@code round-robin}, {@code random}, {@code least-loaded}, {@code cache-aware}, {@code kv-centric}
 *                         ({@link RouterKind}) [cache-aware]
 * @param prefillInstances with {@code pd: disaggregated}, how many of the instances prefill (the rest decode);
 *                         0 = half, rounded up [0]
 * @param cacheAware       the {@code cache-aware} router's thresholds ({@link CacheAwareRouting}); read by that router only
 */
public record ClusterConfig(int instances, int tp, RouterKind router, int prefillInstances, CacheAwareRouting cacheAware) {}
