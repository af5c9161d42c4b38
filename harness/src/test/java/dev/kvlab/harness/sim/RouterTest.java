package dev.kvlab.harness.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.RequestRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The routers of the Mooncake paper's Fig. 5 on a small shared-prefix cluster (sim). */
class RouterTest {

    /** 4 instances, 12 prefix groups with long shared prefixes, enough load that queues form. */
    private static final String CLUSTER = SimCells.BASE.replace("instances: 2", "instances: 4").replace("groups: 6", "groups: 12")
            .replace("rate: 3", "rate: 12");

    private static List<Integer> instances(CellResult r) {
        return r.requests().stream().map(RequestRecord::instance).toList();
    }

    @Test
    void randomIsSeededByTheRunSeed() {
        CellResult a = SimCells.runYaml(CLUSTER, "cluster.router=random", "tiers=none", "seed=3");
        CellResult b = SimCells.runYaml(CLUSTER, "cluster.router=random", "tiers=none", "seed=3");
        CellResult c = SimCells.runYaml(CLUSTER, "cluster.router=random", "tiers=none", "seed=4");
        assertThat(instances(a)).isEqualTo(instances(b));
        assertThat(instances(a)).isNotEqualTo(instances(c));
        // every instance is drawn
        assertThat(instances(a)).contains(0, 1, 2, 3);
    }

    @Test
    void kvCentricUsesLocalPrefixesAndBalancesLoad() {
        CellSummary random = SimCells.runYaml(CLUSTER, "cluster.router=random", "tiers=local-only").summary();
        CellSummary least = SimCells.runYaml(CLUSTER, "cluster.router=least-loaded", "tiers=local-only").summary();
        CellSummary kv = SimCells.runYaml(CLUSTER, "cluster.router=kv-centric", "tiers=local-only").summary();
        // it goes where the prefix is cached: more local hits than routers blind to the cache
        assertThat(kv.localHitRatio()).isGreaterThan(random.localHitRatio()).isGreaterThan(0);
        assertThat(kv.localHitRatio()).isGreaterThan(least.localHitRatio());
        assertThat(kv.meanMs(Metric.TTFT)).isLessThan(random.meanMs(Metric.TTFT));
        assertThat(kv.meanMs(Metric.TTFT)).isLessThan(least.meanMs(Metric.TTFT));
    }

    @Test
    void kvCentricCountsWhatTheGlobalPoolHolds() {
        // remote-only: no instance has a local prefix, the pool holds it for all: the estimate is then queue + prefill of
        // the uncached part + transfer, the same prefix for every instance, so the router spreads the load
        CellResult kv = SimCells.runYaml(CLUSTER, "cluster.router=kv-centric", "tiers=remote-only");
        assertThat(kv.summary().remoteHitRatio()).isGreaterThan(0.3);
        assertThat(kv.summary().wrongHitsUsed()).isZero();
        assertThat(instances(kv)).contains(0, 1, 2, 3);
        CellSummary random = SimCells.runYaml(CLUSTER, "cluster.router=random", "tiers=remote-only").summary();
        assertThat(kv.summary().meanMs(Metric.TTFT)).isLessThan(random.meanMs(Metric.TTFT));
    }

    @Test
    void summariesCarryTheMeanTtft() {
        CellResult r = SimCells.runYaml(CLUSTER, "cluster.router=kv-centric");
        double mean = r.requests().stream().mapToDouble(RequestRecord::ttftMs).average().orElseThrow();
        // HdrHistogram mean (3 significant digits) of the same values
        assertThat((Double) r.summary().columns().get("ttft_mean_ms")).isCloseTo(mean, org.assertj.core.data.Percentage.withPercentage(0.5));
    }
}
