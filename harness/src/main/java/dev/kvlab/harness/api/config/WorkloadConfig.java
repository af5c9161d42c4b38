package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.workloads.api.ArrivalSpec;

/**
 * What requests a run sends and when.
 *
 * @param trace       a Mooncake JSONL trace, resolved against the config file's directory, then the working directory
 * @param generator   instead of a trace: a generator, {@code kind:} ({@code chat}, {@code shared-prefix}, {@code doc-qa},
 *                    {@code zipf}) plus its fields in snake_case (see the workloads module's {@code WorkloadSpec})
 * @param arrival     the arrival process: {@code process} ({@code trace}, {@code poisson}, {@code gamma}, {@code constant},
 *                    {@code closed}), {@code rate}, {@code burstiness}, {@code speedup}, {@code users}, {@code think_ms},
 *                    {@code max_concurrency} (the workloads module's {@code ArrivalSpec})
 * @param limit       trace only: use the first N requests; 0 = all [0]
 * @param blockTokens trace only: tokens per KV block; 0 = the file's, else 512 [0]
 * @param tenant      tenant of the block keys' namespace [default]
 * @param lora        LoRA adapter of the namespace [none]
 * @param passes      generator only: the workload this many times over, each further pass fresh requests drawn the same
 *                    way (a longer run of the same stream: a capacity search's undecided sim probe asks for more) [1]
 */
public record WorkloadConfig(String trace, JsonNode generator, ArrivalSpec arrival, long limit, int blockTokens, String tenant,
                             String lora, int passes) {}
