package dev.kvlab.harness.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Faults as the simulator models them: every request completes, no wrong hit is used, the faults that break
 * fetched blocks show fallbacks the fault-free cell does not have, the strike time is recorded, and a fault cell is
 * as deterministic as any sim cell.
 */
class SimFaultTest {

    static final String BASE = """
            model: llama-3-8b
            hardware: h100
            cluster:
              instances: 2
            store:
              nodes: 3
              capacity: 64GiB
              lease_ttl: 200ms
            tiers: remote-only
            policy: fetch
            workload:
              generator:
                kind: shared-prefix
                groups: 6
                prompts_per_group: 30
                prefix_tokens: 6144
                suffix_tokens: 300
                output_tokens: 16
              arrival:
                process: poisson
                rate: 4
            fault_at: 0.3
            """;

    static CellResult run(String... sets) {
        ConfigTree t = ConfigTree.parse(BASE, "faults-test.yaml", null);
        for (String s : sets) t.set(s);
        return new CellRunner().run(t.bind());
    }

    @ParameterizedTest
    @ValueSource(strings = {"node-crash", "corrupt", "lease-expiry", "link-loss"})
    void faultsThatBreakFetchesFallBackAndNeverServeWrongBlocks(String fault) {
        for (int replicas = 1; replicas <= 2; replicas++) {
            CellResult r = run("fault=" + fault, "store.replicas=" + replicas, "fault_params.corrupt_fraction=1.0");
            CellSummary s = r.summary();
            assertThat(s.get(Columns.COMPLETED))
                    .as("%s r%d: every request completes", fault, replicas)
                    .isEqualTo(s.get(Columns.REQUESTS));
            assertThat(s.get(Columns.FAILED)).isZero();
            assertThat(s.get(Columns.WRONG_HITS_USED)).isZero();
            assertThat(s.get(Columns.FALLBACKS))
                    .as("%s r%d: fallbacks", fault, replicas)
                    .isPositive();
            assertThat(r.extras().get("fault")).isEqualTo(fault);
            assertThat(r.extras().names())
                    .as("every figure is a registered column")
                    .allMatch(k -> Columns.named(k).isPresent());
            assertThat((double) r.extras().get("fault_at_s"))
                    .as("strike time recorded")
                    .isPositive()
                    .isLessThan(s.get(Columns.SIMULATED_SECONDS));
        }
        CellSummary none = run("fault=none").summary();
        assertThat(none.get(Columns.FALLBACKS)).as("no fault, no fallbacks").isZero();
    }

    @Test
    void linkDelaySlowsFetchesAndHealsAfterItsDuration() {
        CellSummary none = run().summary();
        CellResult r = run("fault=link-delay", "fault_params.link_delay=100ms", "fault_params.duration=10s");
        assertThat(r.summary().p99Ms(dev.kvlab.harness.api.Metric.FETCH))
                .isGreaterThan(none.p99Ms(dev.kvlab.harness.api.Metric.FETCH) + 90);
        assertThat(r.summary().get(Columns.COMPLETED)).isEqualTo(r.summary().get(Columns.REQUESTS));
        assertThat((double) r.extras().get("fault_end_s") - (double) r.extras().get("fault_at_s"))
                .isEqualTo(10.0);
    }

    @Test
    void aMasterRestartLosesTheMetadataButNothingWrongIsServed() {
        CellResult r = run("fault=master-restart");
        CellSummary none = run().summary();
        assertThat(r.summary().get(Columns.COMPLETED)).isEqualTo(r.summary().get(Columns.REQUESTS));
        assertThat(r.summary().get(Columns.WRONG_HITS_USED)).isZero();
        assertThat(r.summary().get(Columns.REMOTE_HIT_RATIO))
                .as("what was cached before the restart is gone")
                .isLessThan(none.get(Columns.REMOTE_HIT_RATIO));
    }

    @Test
    void aModelledFailoverHasNoMasterForTheLeaseThenEverythingIsBack() {
        CellResult r = run("fault=master-failover", "fault_params.ha_lease=2s");
        CellSummary none = run().summary();
        CellSummary s = r.summary();
        assertThat(s.get(Columns.COMPLETED)).isEqualTo(s.get(Columns.REQUESTS));
        assertThat(s.get(Columns.WRONG_HITS_USED)).isZero();
        assertThat((double) r.extras().get(Columns.FAILOVER_S.name()))
                .as("no master for the lease")
                .isEqualTo(2.0);
        assertThat((double) r.extras().get(Columns.FAILOVER_FALLBACKS.name()))
                .as("lookups that found no master")
                .isPositive();
        assertThat((double) r.extras().get(Columns.OBJECTS_LOST.name())).isZero();
        assertThat(s.get(Columns.REMOTE_HIT_RATIO))
                .as("the window costs hits")
                .isLessThan(none.get(Columns.REMOTE_HIT_RATIO));
        CellResult again = run("fault=master-failover", "fault_params.ha_lease=2s");
        assertThat(again.summary().with(Columns.WALL_SECONDS, 0.0).columns())
                .as("deterministic")
                .isEqualTo(s.with(Columns.WALL_SECONDS, 0.0).columns());
        assertThatThrownBy(() -> run("fault=master-failover", "fault_params.ha_lease=1500ms"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("fault_params.ha_lease");
    }

    @Test
    void aFaultCellIsDeterministic() {
        CellResult a = run("fault=corrupt", "seed=3"), b = run("fault=corrupt", "seed=3");
        assertThat(a.summary().with(Columns.WALL_SECONDS, 0.0).columns())
                .isEqualTo(b.summary().with(Columns.WALL_SECONDS, 0.0).columns());
        assertThat(a.summary().get(Columns.FALLBACKS)).isPositive();
        assertThat(a.requests()).isEqualTo(b.requests());
    }

    @Test
    void replicasReduceWhatACrashLoses() {
        long r1 = run("fault=node-crash", "store.replicas=1").summary().get(Columns.FALLBACKS);
        long r2 = run("fault=node-crash", "store.replicas=2").summary().get(Columns.FALLBACKS);
        long r2one = run("fault=node-crash", "store.replicas=2", "fault_params.nodes_hit=1")
                .summary()
                .get(Columns.FALLBACKS);
        assertThat(r2).isLessThan(r1);
        assertThat(r2one).as("one crash with two replicas loses nothing").isZero();
    }

    @Test
    void badFaultKeysNameTheKey() {
        assertThatThrownBy(() -> run("fault=meteor"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("fault")
                .hasMessageContaining("node-crash");
        assertThatThrownBy(() -> run("fault_at=1.5"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("fault_at");
        assertThatThrownBy(() -> run("fault=node-crash", "fault_params.nodes_hit=3"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("fault_params.nodes_hit");
        assertThatThrownBy(() -> run("fault=lease-expiry", "fault_params.read_delay=100ms"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("fault_params.read_delay");
        assertThatThrownBy(() -> run("fault_params.link_loss=2"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("fault_params.link_loss");
        assertThatThrownBy(() -> run("fault_params.corrupt_fraction=0"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("corrupt_fraction");
        assertThatThrownBy(() -> run("fault_params.link_delay=soon"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("fault_params.link_delay");
        assertThatThrownBy(() -> run("fault_params.typo=1"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("typo");
    }
}
