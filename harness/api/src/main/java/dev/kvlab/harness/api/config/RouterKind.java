package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * How requests pick a (prefill) instance: {@code round-robin}; {@code random} (uniform, seeded by the run's seed);
 * {@code least-loaded} (fewest outstanding tokens); {@code cache-aware} (SGLang's cache_aware policy: the longest local prefix when it covers enough of the prompt and loads are balanced, else the least loaded; {@link CacheAwareRouting});
 * {@code kv-centric} (the Mooncake paper's KVCache-centric scheduling, its Algorithm 1: the least estimated TTFT =
 * queueing + prefill of what is not cached locally + transfer of what the global pool holds beyond that).
 */
public enum RouterKind implements ConfigEnum {
    ROUND_ROBIN,
    RANDOM,
    LEAST_LOADED,
    CACHE_AWARE,
    KV_CENTRIC;

    @Override
    public String toString() {
        return label();
    }

    /** Case-insensitive; {@code _} may stand for {@code -}. */
    @JsonCreator
    public static RouterKind parse(String s) {
        return ConfigEnum.parse(RouterKind.class, s);
    }
}
