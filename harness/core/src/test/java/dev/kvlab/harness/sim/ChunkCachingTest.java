package dev.kvlab.harness.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import org.junit.jupiter.api.Test;

/**
 * {@code scheduler.cache_chunks}: a prompt's full blocks join the local tier chunk by chunk, so that a prompt of the same
 * prefix admitted while the first is still prefilling hits the blocks already computed; without it they join at the
 * prompt's end, and such a prompt computes them again.
 */
class ChunkCachingTest {

    private static CellSummary run(String... more) throws Exception {
        String[] base = {
            "tiers=local-only", "cache_state=cold", "scheduler.max_batch_tokens=512", "workload.arrival.rate=200"
        };
        String[] sets = java.util.stream.Stream.concat(java.util.Arrays.stream(base), java.util.Arrays.stream(more))
                .toArray(String[]::new);
        return SimCells.runYaml(SimCells.BASE, sets).summary();
    }

    @Test
    void promptsOfOnePrefixAdmittedDuringItsPrefillHitItsComputedChunks() throws Exception {
        CellSummary atEnd = run(), byChunk = run("scheduler.cache_chunks=true");
        assertThat(byChunk.get(Columns.LOCAL_HIT_RATIO))
                .as("hits on chunks computed, before the prompt's end")
                .isGreaterThan(atEnd.get(Columns.LOCAL_HIT_RATIO) + 0.02);
        assertThat(byChunk.get(Columns.TTFT_P50)).isLessThan(atEnd.get(Columns.TTFT_P50));
    }

    @Test
    void withoutALocalTierNothingChanges() throws Exception {
        CellSummary atEnd = run("tiers=none"), byChunk = run("tiers=none", "scheduler.cache_chunks=true");
        assertThat(byChunk.get(Columns.TTFT_P99)).isEqualTo(atEnd.get(Columns.TTFT_P99));
        assertThat(byChunk.get(Columns.ITL_P99)).isEqualTo(atEnd.get(Columns.ITL_P99));
    }
}
