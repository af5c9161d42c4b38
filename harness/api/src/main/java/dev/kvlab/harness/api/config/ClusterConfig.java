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
public record ClusterConfig(
        int instances, int tp, RouterKind router, int prefillInstances, CacheAwareRouting cacheAware) {

    /** Refuses instances or TP out of range, a missing router, bad cache-aware thresholds, a prefill share that leaves no decoder. */
    public void check(ConfigCheck check) {
        check.atLeast("cluster.instances", instances, 1);
        check.atMost("cluster.instances", instances, 4096);
        check.atLeast("cluster.tp", tp, 1);
        check.atMost("cluster.tp", tp, 1024);
        check.need("cluster.router", router);
        check.need("cluster.cache_aware", cacheAware).check(check);
        if (prefillInstances < 0 || prefillInstances >= Math.max(1, instances))
            throw check.bad(
                    "cluster.prefill_instances", "must be in [0, instances - 1] (0 = half), got " + prefillInstances);
    }
}
