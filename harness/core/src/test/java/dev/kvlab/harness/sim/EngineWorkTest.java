package dev.kvlab.harness.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loading fetched or handed-over KV into an engine ({@code kv_load}) is work on the instance between iterations, as a
 * real engine's restore on its engine thread is: every decoding sequence of the instance waits for it, not only the
 * one whose KV it is. Without {@code kv_load} nothing waits.
 */
class EngineWorkTest {

    /** The catalog's H100 figures, with a load cost far above a decode step (100 ms) where {@code load} says. */
    private static Path hardware(Path dir, boolean load) throws Exception {
        return hardware(
                dir,
                load ? "h100-slow-load" : "h100-free-load",
                load ? "    kv_load: {latency_seconds: 0.1, bytes_per_second: 1e12}\n" : "");
    }

    /** The catalog's H100 figures as hardware {@code id}, with {@code extra} lines. */
    private static Path hardware(Path dir, String id, String extra) throws Exception {
        Path f = dir.resolve(id + ".yaml");
        Files.writeString(f, """
                hardware:
                  - id: %s
                    bf16_flops: 989.4e12
                    hbm_bandwidth: 3.35e12
                    hbm_capacity: 80GB
                    host_link_bandwidth: 64e9
                    prefill_mfu: 0.5
                    decode_bandwidth_utilization: 0.75
                """.formatted(id) + extra);
        return f;
    }

    private static CellSummary run(Path dir, boolean load, String... sets) throws Exception {
        String yaml =
                SimCells.BASE.replace("hardware: h100", "hardware: " + (load ? "h100-slow-load" : "h100-free-load"))
                        + "catalog: [" + hardware(dir, load) + "]\n";
        return SimCells.runYaml(yaml, sets).summary();
    }

    @Test
    void aHandoverLoadStallsTheDecodeInstance(@TempDir Path dir) throws Exception {
        String[] pd = {"pd=disaggregated", "cluster.instances=4", "tiers=none"};
        CellSummary free = run(dir, false, pd), slow = run(dir, true, pd);
        assertThat(free.get(Columns.ITL_P99)).isLessThan(50.0);
        assertThat(free.get(Columns.TBT_P99)).isLessThan(10.0);
        // a request's own handover is before its first token (its TTFT, below); the 100 ms gaps are other requests'
        // loads on the decode instance it decodes on: among the longest 10% of its gaps (tbt) where it met one
        assertThat(slow.get(Columns.TBT_P99))
                .as("decoding sequences wait for every handover their instance loads")
                .isGreaterThanOrEqualTo(30.0);
    }

    @Test
    void aDisaggregatedFirstTokenWaitsForItsHandover(@TempDir Path dir) throws Exception {
        String[] pd = {"pd=disaggregated", "cluster.instances=4", "tiers=none"};
        CellSummary free = run(dir, false, pd), slow = run(dir, true, pd);
        assertThat(slow.get(Columns.TTFT_P50))
                .as("the client's first token comes from the decode instance after the KV is loaded there (100 ms)")
                .isGreaterThanOrEqualTo(free.get(Columns.TTFT_P50) + 100.0);
    }

    @Test
    void aFetchLoadStallsItsInstance(@TempDir Path dir) throws Exception {
        String[] remote = {"tiers=remote-only", "cache_state=hot"};
        CellSummary free = run(dir, false, remote), slow = run(dir, true, remote);
        assertThat(free.get(Columns.REMOTE_HIT_RATIO)).isPositive();
        assertThat(free.get(Columns.ITL_P99)).isLessThan(50.0);
        assertThat(slow.get(Columns.ITL_P99))
                .as("a fetch's load holds the instance: the other sequences' next token waits for it")
                .isGreaterThanOrEqualTo(100.0);
    }

    @Test
    void anAssemblyOffTheEngineThreadHoldsOnlyItsOwnRequest(@TempDir Path dir) throws Exception {
        // the whole 100 ms load is assembly (an I/O thread's work): nothing of it holds the instance
        Path f = hardware(
                dir,
                "h100-assembled-load",
                "    kv_load: {latency_seconds: 0.1, bytes_per_second: 1e12, assembly: {latency_seconds: 0.1, bytes_per_second: 1e12}}\n");
        String yaml =
                SimCells.BASE.replace("hardware: h100", "hardware: h100-assembled-load") + "catalog: [" + f + "]\n";
        CellSummary free = run(dir, false, "tiers=remote-only", "cache_state=hot"),
                off =
                        SimCells.runYaml(yaml, "tiers=remote-only", "cache_state=hot")
                                .summary();
        assertThat(off.get(Columns.ITL_P99))
                .as("the other sequences' tokens do not wait for an assembly off the engine thread")
                .isLessThan(50.0);
        assertThat(off.get(Columns.TTFT_P50))
                .as("the fetching request's first token still does")
                .isGreaterThanOrEqualTo(free.get(Columns.TTFT_P50) + 100.0);
    }
}
