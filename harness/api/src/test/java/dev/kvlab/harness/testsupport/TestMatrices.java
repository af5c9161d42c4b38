package dev.kvlab.harness.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Small sim matrices for bundle tests (a dozen chat requests per cell, a fraction of a second each). */
public final class TestMatrices {

    public static final String SMALL = """
            name: small
            cluster:
              instances: 2
            store:
              nodes: 2
              capacity: 16GiB
            workload:
              generator: {kind: chat, users: 4, rounds: 3, system_prompt_tokens: 1024, context_tokens: 512, question_tokens: 64, answer_tokens: 16}
              arrival: {process: poisson, rate: 2}
            slo:
              ttft_ms: 50
            factors:
              cache_state: [cold, hot]
              tiers: [local-only, combined]
            replicates: 2
            baseline: {cache_state: cold, tiers: local-only}
            measurement:
              interval: 2s
            """;

    private TestMatrices() {}

    public static Path write(Path dir, String name, String yaml) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, yaml);
        return f;
    }
}
