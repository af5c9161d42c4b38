package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What requests a run sends.
 *
 * @param trace       a Mooncake JSONL trace, resolved against the config file's directory, then the working directory
 * @param generator   instead of a trace: a generator, {@code kind:} plus its fields (see the workloads module)
 * @param limit       use only the first N requests; 0 = all [0]
 * @param speedup     divide arrival times by this (2 = twice the rate) [1]
 * @param blockTokens tokens per KV block; 0 = the source's (512 for Mooncake traces) [0]
 * @param tenant      tenant of the block keys' namespace [default]
 * @param lora        LoRA adapter of the namespace [none]
 */
public record WorkloadConfig(String trace, JsonNode generator, long limit, double speedup, int blockTokens, String tenant,
                             String lora) {}
