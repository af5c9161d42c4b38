package dev.kvlab.harness.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.RequestRecord;
import dev.kvlab.harness.core.internal.sim.SimStore;
import org.junit.jupiter.api.Test;

class SimCellTest {

    @Test
    void sameSeedSameResultDifferentSeedDifferentResult() {
        CellResult a = SimCells.run("seed=5");
        CellResult b = SimCells.run("seed=5");
        CellResult c = SimCells.run("seed=6");
        assertThat(SimCells.withoutWall(a)).isEqualTo(SimCells.withoutWall(b));
        assertThat(a.requests()).isEqualTo(b.requests());
        assertThat(SimCells.withoutWall(a)).isNotEqualTo(SimCells.withoutWall(c));
        assertThat(a.summary().get(Columns.COMPLETED)).isEqualTo(120);
        assertThat(a.summary().get(Columns.WRONG_HITS_USED)).isZero();
        assertThat(a.summary().get(Columns.SIMULATED_SECONDS)).isGreaterThan(30);
    }

    @Test
    void hitsComeOnlyFromTheTiersThatAreOn() {
        CellSummary none = SimCells.run("tiers=none").summary();
        CellSummary local = SimCells.run("tiers=local-only").summary();
        CellSummary remote = SimCells.run("tiers=remote-only").summary();
        CellSummary both = SimCells.run("tiers=combined").summary();
        assertThat(none.get(Columns.LOCAL_HIT_RATIO)).isZero();
        assertThat(none.get(Columns.REMOTE_HIT_RATIO)).isZero();
        assertThat(none.get(Columns.FETCHED_BYTES)).isZero();
        assertThat(none.get(Columns.WRITTEN_BACK_BYTES)).isZero();
        assertThat(local.get(Columns.LOCAL_HIT_RATIO)).isGreaterThan(0.3);
        assertThat(local.get(Columns.REMOTE_HIT_RATIO)).isZero();
        assertThat(local.get(Columns.FETCHED_BYTES)).isZero();
        assertThat(remote.get(Columns.LOCAL_HIT_RATIO)).isZero();
        assertThat(remote.get(Columns.REMOTE_HIT_RATIO)).isGreaterThan(0.3);
        assertThat(remote.get(Columns.FETCHED_BYTES)).isPositive();
        assertThat(both.get(Columns.LOCAL_HIT_RATIO) + both.get(Columns.REMOTE_HIT_RATIO))
                .isGreaterThan(0.5);
        // reuse lowers TTFT
        assertThat(both.p50Ms(Metric.TTFT)).isLessThan(none.p50Ms(Metric.TTFT));
        assertThat(remote.p50Ms(Metric.TTFT)).isLessThan(none.p50Ms(Metric.TTFT));
    }

    @Test
    void autoFetchesLessThanFetchOnASlowLink() {
        CellSummary fetch = SimCells.run("tiers=remote-only", "transport=5gbps", "policy=fetch")
                .summary();
        CellSummary auto = SimCells.run("tiers=remote-only", "transport=5gbps", "policy=auto")
                .summary();
        CellSummary recompute = SimCells.run("tiers=remote-only", "transport=5gbps", "policy=recompute")
                .summary();
        assertThat(fetch.get(Columns.FETCHED_BYTES)).isPositive();
        assertThat(auto.get(Columns.FETCHED_BYTES)).isLessThan(fetch.get(Columns.FETCHED_BYTES));
        assertThat(recompute.get(Columns.FETCHED_BYTES)).isZero();
        assertThat(recompute.get(Columns.REMOTE_HIT_RATIO)).isZero();
        // the store still held the prefixes: they were just not worth fetching
        assertThat(recompute.get(Columns.REMOTE_AVAILABLE_RATIO)).isGreaterThan(0.3);
        // on a fast link auto fetches what fetch fetches
        CellSummary fast = SimCells.run("tiers=remote-only", "transport=4x200gbps", "policy=auto")
                .summary();
        assertThat(fast.get(Columns.REMOTE_HIT_RATIO)).isGreaterThan(0.3);
    }

    @Test
    void aHotCacheLowersTtft() {
        // every prefix is asked for once: cold, nothing hits; hot, the warm-up pass left the prefixes in the tiers
        String once = SimCells.BASE
                .replace("groups: 6", "groups: 60")
                .replace("prompts_per_group: 20", "prompts_per_group: 1");
        CellSummary cold = SimCells.runYaml(once, "cache_state=cold").summary();
        CellResult hot = SimCells.runYaml(once, "cache_state=hot");
        assertThat(hot.summary().get(Columns.REQUESTS)).isEqualTo(60);
        assertThat((Long) hot.extras().get("warmup_requests")).isEqualTo(60);
        assertThat(cold.get(Columns.LOCAL_HIT_RATIO) + cold.get(Columns.REMOTE_HIT_RATIO))
                .isZero();
        assertThat(hot.summary().p50Ms(Metric.TTFT)).isLessThan(cold.p50Ms(Metric.TTFT));
        assertThat(hot.summary().get(Columns.LOCAL_HIT_RATIO) + hot.summary().get(Columns.REMOTE_HIT_RATIO))
                .isGreaterThan(cold.get(Columns.LOCAL_HIT_RATIO) + cold.get(Columns.REMOTE_HIT_RATIO));
    }

    @Test
    void withoutTiersTtftGrowsWithInputLength() {
        String light =
                SimCells.BASE.replace("rate: 3", "rate: 0.2").replace("prompts_per_group: 20", "prompts_per_group: 3");
        double shortP50 = SimCells.runYaml(light.replace("prefix_tokens: 6144", "prefix_tokens: 1024"), "tiers=none")
                .summary()
                .p50Ms(Metric.TTFT);
        double longP50 = SimCells.runYaml(light.replace("prefix_tokens: 6144", "prefix_tokens: 7424"), "tiers=none")
                .summary()
                .p50Ms(Metric.TTFT);
        assertThat(longP50).isGreaterThan(3 * shortP50);
    }

    @Test
    void corruptFetchesFallBackToRecomputeAndAreNeverUsed() {
        // every other block comes back with a wrong checksum
        SimStore.FaultHook corrupt = (key, crc) -> (key.hashCode() & 1) == 0 ? crc ^ 0x5a5a : crc;
        CellResult r = SimCells.runWithFaults(corrupt, "tiers=remote-only", "policy=fetch");
        CellSummary s = r.summary();
        assertThat(s.get(Columns.COMPLETED)).isEqualTo(120);
        assertThat(s.get(Columns.REJECTED_BLOCKS)).isPositive();
        assertThat(s.get(Columns.FALLBACKS)).isGreaterThanOrEqualTo(s.get(Columns.REJECTED_BLOCKS));
        assertThat(s.get(Columns.WRONG_HITS_USED)).isZero();
        CellSummary clean = SimCells.runWithFaults(SimStore.FaultHook.NONE, "tiers=remote-only", "policy=fetch")
                .summary();
        assertThat(clean.get(Columns.FALLBACKS)).isZero();
        assertThat(s.get(Columns.REMOTE_HIT_RATIO)).isLessThan(clean.get(Columns.REMOTE_HIT_RATIO));
        long fallbackSum =
                r.requests().stream().mapToLong(RequestRecord::fallbackBlocks).sum();
        assertThat(fallbackSum).isEqualTo(s.get(Columns.FALLBACKS));
    }

    @Test
    void pdDisaggregationHandsKvToDecodeInstances() {
        CellResult pd = SimCells.run("pd=disaggregated", "cluster.instances=4");
        CellResult co = SimCells.run("pd=colocated", "cluster.instances=4");
        assertThat(pd.summary().get(Columns.COMPLETED)).isEqualTo(120);
        assertThat((Long) pd.extras().get("handoff_bytes")).isPositive();
        assertThat((Long) co.extras().get("handoff_bytes")).isZero();
        assertThat(pd.extras().names())
                .as("every figure of a sim cell is a registered column")
                .allMatch(k -> Columns.named(k).isPresent());
        assertThat(pd.requests()).allSatisfy(r -> assertThat(r.instance()).isBetween(0, 1)); // prefill side: 0 and 1
    }

    @Test
    void aRequestThatCannotFitFailsAloneAndIsCounted() {
        // 600k-token prompts need more KV blocks than an instance's HBM holds (about 833 blocks of 512 tokens)
        String yaml = SimCells.BASE
                .replace("prefix_tokens: 6144", "prefix_tokens: 600000")
                .replace("prompts_per_group: 20", "prompts_per_group: 1");
        CellSummary s = SimCells.runYaml(yaml).summary();
        assertThat(s.get(Columns.REQUESTS)).isEqualTo(6);
        assertThat(s.get(Columns.FAILED)).isEqualTo(6);
        assertThat(s.get(Columns.COMPLETED)).isZero();
    }

    @Test
    void closedLoopAndChunkingOffComplete() {
        CellSummary s = SimCells.run(
                        "workload.arrival.process=closed",
                        "workload.arrival.users=4",
                        "workload.arrival.rate=0",
                        "scheduler.chunked_prefill=false",
                        "cluster.router=round-robin")
                .summary();
        assertThat(s.get(Columns.COMPLETED)).isEqualTo(120);
        CellSummary ll = SimCells.run("cluster.router=least-loaded", "local.dram_capacity=256GiB")
                .summary();
        assertThat(ll.get(Columns.COMPLETED)).isEqualTo(120);
    }

    @Test
    void aBoundedPrefixCacheKeepsFewerPrefixesThanTheFreePool() {
        String[] hot = {"tiers=local-only", "cache_state=hot", "cluster.router=round-robin"};
        double pool = SimCells.run(hot).summary().get(Columns.LOCAL_HIT_RATIO);
        // two of the six 6,144-token prefixes fit: round-robin brings each instance all six, so most prompts miss
        double bounded = SimCells.run(append(hot, "local.cache_capacity=12288tok"))
                .summary()
                .get(Columns.LOCAL_HIT_RATIO);
        assertThat(pool).isGreaterThan(0.8);
        assertThat(bounded).isLessThan(pool - 0.3);
        assertThatThrownBy(() -> SimCells.run(append(hot, "local.cache_capacity=100tok")))
                .isInstanceOf(dev.kvlab.harness.api.input.BadInputException.class)
                .hasMessageContaining("local.cache_capacity");
    }

    private static String[] append(String[] a, String... more) {
        String[] out = java.util.Arrays.copyOf(a, a.length + more.length);
        System.arraycopy(more, 0, out, a.length, more.length);
        return out;
    }
}
