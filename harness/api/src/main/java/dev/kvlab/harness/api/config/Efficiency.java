package dev.kvlab.harness.api.config;

/**
 * Overrides of the hardware's efficiency factors; null keeps the catalog's.
 *
 * @param prefillMfu                 fraction of peak FLOP/s prefill reaches
 * @param decodeBandwidthUtilization fraction of HBM bandwidth decode reaches
 */
public record Efficiency(Double prefillMfu, Double decodeBandwidthUtilization) {

    /** Refuses a factor outside (0, 1]. */
    public void check(ConfigCheck check) {
        check.fraction("efficiency.prefill_mfu", prefillMfu);
        check.fraction("efficiency.decode_bandwidth_utilization", decodeBandwidthUtilization);
    }
}
