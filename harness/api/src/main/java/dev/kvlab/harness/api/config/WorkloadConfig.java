package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.WorkloadFormatException;
import dev.kvlab.workloads.api.WorkloadSpec;

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
public record WorkloadConfig(
        String trace,
        JsonNode generator,
        ArrivalSpec arrival,
        long limit,
        int blockTokens,
        String tenant,
        String lora,
        int passes) {

    /** Whether the requests come from a generator (else from the trace). */
    public boolean generated() {
        return generator != null && !generator.isNull();
    }

    /** This workload with {@code a} as its arrival process. */
    public WorkloadConfig withArrival(ArrivalSpec a) {
        return new WorkloadConfig(trace, generator, a, limit, blockTokens, tenant, lora, passes);
    }

    /** This workload {@code n} times over ({@code workload.passes}). */
    public WorkloadConfig withPasses(int n) {
        return new WorkloadConfig(trace, generator, arrival, limit, blockTokens, tenant, lora, n);
    }

    /**
     * Checks the keys of this block: exactly one of trace and generator, the keys that apply to that one only, the
     * namespace names and the arrival process. (The generator's own fields are checked once bound to its kind.)
     */
    public void check(ConfigCheck check) {
        boolean gen = generated();
        if ((trace == null) == !gen)
            throw check.bad("workload", "give exactly one of workload.trace (a Mooncake trace) or workload.generator");
        check.atLeast("workload.limit", limit, 0);
        check.atLeast("workload.block_tokens", blockTokens, 0);
        check.atLeast("workload.passes", passes, 1);
        if (!gen && passes != 1)
            throw check.bad(
                    "workload.passes", "applies to generators; a trace is replayed once (workload.limit cuts it)");
        if (tenant == null || tenant.isBlank()) throw check.bad("workload.tenant", "must be a non-empty name");
        if (lora == null || lora.isBlank())
            throw check.bad("workload.lora", "must be a non-empty name (none for no adapter)");
        try {
            check.need("workload.arrival", arrival).validate("workload.arrival");
        } catch (WorkloadFormatException e) {
            throw check.bad("workload.arrival", e.getMessage());
        }
        if (gen) checkGeneratorKeys(check);
    }

    private void checkGeneratorKeys(ConfigCheck check) {
        if (!generator.isObject())
            throw check.bad(
                    "workload.generator",
                    "must be a mapping with a kind (" + String.join(", ", WorkloadSpec.KINDS) + ")");
        if (limit != 0)
            throw check.bad("workload.limit", "applies to traces; a generator's size is set by its own fields");
        if (blockTokens != 0)
            throw check.bad("workload.block_tokens", "applies to traces; give workload.generator.block_tokens");
    }
}
