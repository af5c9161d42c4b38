package dev.kvlab.harness.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.RequestRecord;
import dev.kvlab.harness.internal.sim.SimStore;
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
        assertThat(a.summary().completed()).isEqualTo(120);
        assertThat(a.summary().wrongHitsUsed()).isZero();
        assertThat(a.summary().simulatedSeconds()).isGreaterThan(30);
    }

    @Test
    void hitsComeOnlyFromTheTiersThatAreOn() {
        CellSummary none = SimCells.run("tiers=none").summary();
        CellSummary local = SimCells.run("tiers=local-only").summary();
        CellSummary remote = SimCells.run("tiers=remote-only").summary();
        CellSummary both = SimCells.run("tiers=combined").summary();
        assertThat(none.localHitRatio()).isZero();
        assertThat(none.remoteHitRatio()).isZero();
        assertThat(none.fetchedBytes()).isZero();
        assertThat(none.writtenBackBytes()).isZero();
        assertThat(local.localHitRatio()).isGreaterThan(0.3);
        assertThat(local.remoteHitRatio()).isZero();
        assertThat(local.fetchedBytes()).isZero();
        assertThat(remote.localHitRatio()).isZero();
        assertThat(remote.remoteHitRatio()).isGreaterThan(0.3);
        assertThat(remote.fetchedBytes()).isPositive();
        assertThat(both.localHitRatio() + both.remoteHitRatio()).isGreaterThan(0.5);
        // reuse lowers TTFT
        assertThat(both.p50Ms(Metric.TTFT)).isLessThan(none.p50Ms(Metric.TTFT));
        assertThat(remote.p50Ms(Metric.TTFT)).isLessThan(none.p50Ms(Metric.TTFT));
    }

    @Test
    void autoFetchesLessThanFetchOnASlowLink() {
        CellSummary fetch = SimCells.run("tiers=remote-only", "transport=5gbps", "policy=fetch").summary();
        CellSummary auto = SimCells.run("tiers=remote-only", "transport=5gbps", "policy=auto").summary();
        CellSummary recompute = SimCells.run("tiers=remote-only", "transport=5gbps", "policy=recompute").summary();
        assertThat(fetch.fetchedBytes()).isPositive();
        assertThat(auto.fetchedBytes()).isLessThan(fetch.fetchedBytes());
        assertThat(recompute.fetchedBytes()).isZero();
        assertThat(recompute.remoteHitRatio()).isZero();
        // the store still held the prefixes: they were just not worth fetching
        assertThat(recompute.remoteAvailableRatio()).isGreaterThan(0.3);
        // on a fast link auto fetches what fetch fetches
        CellSummary fast = SimCells.run("tiers=remote-only", "transport=4x200gbps", "policy=auto").summary();
        assertThat(fast.remoteHitRatio()).isGreaterThan(0.3);
    }

    @Test
    void aHotCacheLowersTtft() {
        // every prefix is asked for once: cold, nothing hits; hot, the warm-up pass left the prefixes in the tiers
        String once = SimCells.BASE.replace("groups: 6", "groups: 60").replace("prompts_per_group: 20", "prompts_per_group: 1");
        CellSummary cold = SimCells.runYaml(once, "cache_state=cold").summary();
        CellResult hot = SimCells.runYaml(once, "cache_state=hot");
        assertThat(hot.summary().requests()).isEqualTo(60);
        assertThat((Long) hot.extras().get("warmup_requests")).isEqualTo(60);
        assertThat(cold.localHitRatio() + cold.remoteHitRatio()).isZero();
        assertThat(hot.summary().p50Ms(Metric.TTFT)).isLessThan(cold.p50Ms(Metric.TTFT));
        assertThat(hot.summary().localHitRatio() + hot.summary().remoteHitRatio())
                .isGreaterThan(cold.localHitRatio() + cold.remoteHitRatio());
    }

    @Test
    void withoutTiersTtftGrowsWithInputLength() {
        String light = SimCells.BASE.replace("rate: 3", "rate: 0.2").replace("prompts_per_group: 20", "prompts_per_group: 3");
        double shortP50 = SimCells.runYaml(light.replace("prefix_tokens: 6144", "prefix_tokens: 1024"), "tiers=none").summary().p50Ms(Metric.TTFT);
        double longP50 = SimCells.runYaml(light.replace("prefix_tokens: 6144", "prefix_tokens: 7424"), "tiers=none").summary().p50Ms(Metric.TTFT);
        assertThat(longP50).isGreaterThan(3 * shortP50);
    }

    @Test
    void corruptFetchesFallBackToRecomputeAndAreNeverUsed() {
        // every other block comes back with a wrong checksum
        SimStore.FaultHook corrupt = (key, crc) -> (key.hashCode() & 1) == 0 ? crc ^ 0x5a5a : crc;
        CellResult r = SimCells.runWithFaults(corrupt, "tiers=remote-only", "policy=fetch");
        CellSummary s = r.summary();
        assertThat(s.completed()).isEqualTo(120);
        assertThat(s.rejectedBlocks()).isPositive();
        assertThat(s.fallbacks()).isGreaterThanOrEqualTo(s.rejectedBlocks());
        assertThat(s.wrongHitsUsed()).isZero();
        CellSummary clean = SimCells.runWithFaults(SimStore.FaultHook.NONE, "tiers=remote-only", "policy=fetch").summary();
        assertThat(clean.fallbacks()).isZero();
        assertThat(s.remoteHitRatio()).isLessThan(clean.remoteHitRatio());
        long fallbackSum = r.requests().stream().mapToLong(RequestRecord::fallbackBlocks).sum();
        assertThat(fallbackSum).isEqualTo(s.fallbacks());
    }

    @Test
    void pdDisaggregationHandsKvToDecodeInstances() {
        CellResult pd = SimCells.run("pd=disaggregated", "cluster.instances=4");
        CellResult co = SimCells.run("pd=colocated", "cluster.instances=4");
        assertThat(pd.summary().completed()).isEqualTo(120);
        assertThat((Long) pd.extras().get("handoff_bytes")).isPositive();
        assertThat((Long) co.extras().get("handoff_bytes")).isZero();
        assertThat(pd.requests()).allSatisfy(r -> assertThat(r.instance()).isBetween(0, 1)); // prefill side: 0 and 1
    }

    @Test
    void aRequestThatCannotFitFailsAloneAndIsCounted() {
        // 600k-token prompts need more KV blocks than an instance's HBM holds (about 833 blocks of 512 tokens)
        String yaml = SimCells.BASE.replace("prefix_tokens: 6144", "prefix_tokens: 600000").replace("prompts_per_group: 20", "prompts_per_group: 1");
        CellSummary s = SimCells.runYaml(yaml).summary();
        assertThat(s.requests()).isEqualTo(6);
        assertThat(s.failed()).isEqualTo(6);
        assertThat(s.completed()).isZero();
    }

    @Test
    void closedLoopAndChunkingOffComplete() {
        CellSummary s = SimCells.run("workload.arrival.process=closed", "workload.arrival.users=4", "workload.arrival.rate=0",
                "scheduler.chunked_prefill=false", "cluster.router=round-robin").summary();
        assertThat(s.completed()).isEqualTo(120);
        CellSummary ll = SimCells.run("cluster.router=least-loaded", "local.dram_capacity=256GiB").summary();
        assertThat(ll.completed()).isEqualTo(120);
    }
}
