package dev.kvlab.harness.api.config;

/**
 * Overrides of the hardware's efficiency factors; null keeps the catalog's.
 *
 * @param prefillMfu                 fraction of peak FLOP/s prefill reaches
 * @param decodeBandwidthUtilization fraction of HBM bandwidth decode reaches
 */
public record Efficiency(Double prefillMfu, Double decodeBandwidthUtilization) {}
