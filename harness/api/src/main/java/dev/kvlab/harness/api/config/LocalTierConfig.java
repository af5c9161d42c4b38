package dev.kvlab.harness.api.config;

/**
 * The per-instance (engine-owned) tier: the HBM paged prefix cache is sized from HBM left after the weights;
 * an optional host-DRAM tier takes the blocks HBM evicts.
 *
 * @param dramCapacity  DRAM tier per instance, e.g. {@code 64GiB}, or tokens of the run's model ({@code 3Mtok}:
 *                      KV bytes per token per rank, times the instance's ranks); {@code 0} = none [0]
 * @param cacheCapacity most KV the HBM prefix cache keeps per instance, in bytes or tokens as {@code dramCapacity}:
 *                      an engine whose prefix cache is a bounded tier of its own (llama.cpp's kept blocks, LMCache's
 *                      local buffer) rather than every free block of the paged pool (vLLM's automatic prefix caching);
 *                      blocks in use by running requests count, and may exceed it while they run; {@code 0} = the
 *                      free pool [0]
 */
public record LocalTierConfig(String dramCapacity, String cacheCapacity) {

    /** The DRAM tier's bytes per instance ({@code bytesPerToken}: the model's KV bytes per token over all the instance's ranks). */
    public long checkedDramBytes(ConfigCheck check, long bytesPerToken) {
        return check.kvSize("local.dram_capacity", dramCapacity, bytesPerToken, true);
    }

    /** The prefix cache's bound in bytes per instance (0: none, the free pool), as {@link #checkedDramBytes}. */
    public long checkedCacheBytes(ConfigCheck check, long bytesPerToken) {
        return cacheCapacity == null ? 0 : check.kvSize("local.cache_capacity", cacheCapacity, bytesPerToken, true);
    }

    /** This tier with its prefix cache bounded at {@code tokens} tokens (a twin of an engine whose cache is such a tier). */
    public LocalTierConfig withCacheTokens(long tokens) {
        return new LocalTierConfig(dramCapacity, tokens + "tok");
    }
}
