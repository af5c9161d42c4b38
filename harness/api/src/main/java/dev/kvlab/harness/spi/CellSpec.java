package dev.kvlab.harness.spi;

import dev.kvlab.harness.api.config.RunConfig;

/**
 * What every cell is planned from, whatever its target: the validated config, its workload, the tokens per KV
 * block its requests carry and the interval of its histograms. The emulated model's {@code CellPlan} adds what
 * the roofline and the store need; another target adds its own.
 *
 * @param config        the bound config
 * @param workload      the workload spec, arrival process and namespace
 * @param blockTokens   tokens per KV block
 * @param intervalNanos interval histogram length
 */
public record CellSpec(RunConfig config, WorkloadPlan workload, int blockTokens, long intervalNanos) {}
