package dev.kvlab.harness.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.RunValidator;
import dev.kvlab.harness.core.internal.sim.SimTwin;
import dev.kvlab.transport.api.LinearTransportModel;
import dev.kvlab.transport.api.TransportModel;
import dev.kvlab.transport.api.WakingTransportModel;
import org.junit.jupiter.api.Test;

/**
 * A sim twin on a measured path with a wake after idle: a fetch that starts after the store's data path idled pays
 * the wake, one that starts while another transfer moves does not; with no wake the twin is what it was.
 */
class TwinWakeTest {

    private static final LinearTransportModel PATH = new LinearTransportModel("tcp-measured", false, 0, 0, 3e9, 3e9);

    private static CellPlan plan(String... sets) {
        String[] all = new String[sets.length + 3];
        all[0] = "tiers=remote-only";
        all[1] = "cache_state=hot";
        all[2] = "policy=fetch";
        System.arraycopy(sets, 0, all, 3, sets.length);
        return RunValidator.plan(SimCells.config(SimCells.BASE, all), k -> null);
    }

    private static double fetchP50(CellPlan p, TransportModel m) {
        CellResult r = SimTwin.run(p, m, 90_000);
        return r.summary().p50Ms(Metric.FETCH);
    }

    @Test
    void aFetchAfterIdlePaysTheWake() {
        CellPlan sparse =
                plan("workload.arrival.rate=2"); // ~0.5 s between requests: every fetch after a long idle spell
        double without = fetchP50(sparse, PATH), with = fetchP50(sparse, new WakingTransportModel(PATH, 2e-3));
        assertThat(with - without)
                .as("fetch p50 with a 2 ms wake minus without (ms)")
                .isCloseTo(2.0, within(0.05));
    }

    @Test
    void fetchesBackToBackPayLess() {
        // a closed loop of many users: the path is hardly ever idle for long
        CellPlan busy =
                plan("workload.arrival.process=closed", "workload.arrival.users=16", "workload.arrival.think_ms=0");
        double without = fetchP50(busy, PATH), with = fetchP50(busy, new WakingTransportModel(PATH, 2e-3));
        assertThat(with - without)
                .as("fetch p50 with a 2 ms wake minus without, path busy (ms)")
                .isLessThan(0.5);
    }

    @Test
    void noWakeLeavesTheTwinBitIdentical() {
        CellPlan p = plan();
        CellResult a = SimTwin.run(p, PATH, 90_000), b = SimTwin.run(p, new WakingTransportModel(PATH, 0), 90_000);
        assertThat(SimCells.withoutWall(b)).isEqualTo(SimCells.withoutWall(a));
    }
}
