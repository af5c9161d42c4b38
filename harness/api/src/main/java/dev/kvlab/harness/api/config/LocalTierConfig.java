package dev.kvlab.harness.api.config;

/**
 * The per-instance (engine-owned) tier: the HBM paged prefix cache is sized from HBM left after the weights;
 * an optional host-DRAM tier takes the blocks HBM evicts.
 *
 * @param dramCapacity DRAM tier per instance, e.g. {@code 64GiB}, or tokens of the run's model ({@code 3Mtok}:
 *                     KV bytes per token per rank, times the instance's ranks); {@code 0} = none [0]
 */
public record LocalTierConfig(String dramCapacity) {

    /** The DRAM tier's bytes per instance ({@code bytesPerToken}: the model's KV bytes per token over all the instance's ranks). */
    public long checkedDramBytes(ConfigCheck check, long bytesPerToken) {
        return check.kvSize("local.dram_capacity", dramCapacity, bytesPerToken, true);
    }
}
