package dev.kvlab.harness.capacity;

import static dev.kvlab.harness.capacity.CapacitySearchTest.capacity;
import static dev.kvlab.harness.capacity.CapacitySearchTest.flags;
import static dev.kvlab.harness.capacity.CapacitySearchTest.runner;
import static dev.kvlab.harness.capacity.CapacitySearchTest.scripted;
import static dev.kvlab.harness.capacity.CapacitySearchTest.spec;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.experiments.internal.matrix.MatrixRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26: a search stopped with a bracket reports its last passing load whether its budget or {@code max_probes}
 * stopped it, and a cell is labelled the baseline only when it is (a baseline that was not searched is said so).
 */
class CapacityReportingTest {

    static final String BASE = CapacitySearchTest.ISO.replace("SLO", "1000");

    @Test
    void aSearchStoppedByItsBudgetReportsItsLastPassingLoadAsMaxProbesDoes(@TempDir Path t) throws Exception {
        // every probe passes: doubling from 1 goes on until the search is stopped
        MatrixRunner.Outcome budget = runner(scripted(x -> 1.0), null, 1)
                .run(
                        spec(t, BASE + "capacity: {knob: workload.arrival.rate, start: 1, max: 1000, budget: 1ms}\n"),
                        t.resolve("budget"),
                        false);
        JsonNode b = capacity(budget.bundle()).get("cells").get(0);
        assertThat(flags(b)).contains("budget");
        assertThat(b.get("capacity").isNumber())
                .as("capacity of a budget-stopped search: %s", b)
                .isTrue();
        // how many probes ran before the budget was out depends on how fast they ran: every probe passed, so the
        // capacity is the last one's load, as a search stopped by max_probes after as many probes reports it
        JsonNode ran = b.get("probes");
        JsonNode last = ran.get(ran.size() - 1);
        assertThat(b.get("capacity").asDouble()).isEqualTo(last.get("load").asDouble());
        assertThat(b.get("capacity_run").asText()).isEqualTo(last.get("run").asText());
        assertThat(capacity(budget.bundle())
                        .get("summary")
                        .get(0)
                        .get("capacity")
                        .get("mean")
                        .asDouble())
                .isEqualTo(last.get("load").asDouble());

        MatrixRunner.Outcome probes = runner(scripted(x -> 1.0), null, 1)
                .run(
                        spec(
                                t,
                                BASE + "capacity: {knob: workload.arrival.rate, start: 1, max: 1000, max_probes: "
                                        + ran.size() + "}\n"),
                        t.resolve("probes"),
                        false);
        JsonNode p = capacity(probes.bundle()).get("cells").get(0);
        assertThat(flags(p)).contains("max_probes");
        assertThat(p.get("capacity")).isEqualTo(b.get("capacity"));
        assertThat(p.get("first_failing")).isEqualTo(b.get("first_failing"));
    }

    @Test
    void onlyTheBaselineIsLabelledBaselineAndAnUnsearchedOneIsSaidSo(@TempDir Path t) throws Exception {
        String m = BASE + "factors: {tiers: [none, local-only]}\nbaseline: {tiers: none}\n"
                + "capacity: {knob: workload.arrival.rate, start: 1, max_probes: 2, cells: {tiers: local-only}}\n";
        MatrixRunner.Outcome o = runner(scripted(x -> 1.0), null, 1).run(spec(t, m), t.resolve("runs"), false);
        JsonNode cap = capacity(o.bundle());
        assertThat(cap.get("baseline").asText()).startsWith("c01");
        JsonNode row = cap.get("summary").get(0);
        assertThat(row.get("cell").asText()).startsWith("c02");
        assertThat(row.get("vs_baseline").isObject()).isTrue();
        assertThat(row.get("vs_baseline").get("searched").asBoolean()).isFalse();
        assertThat(row.get("vs_baseline").get("text").asText())
                .isEqualTo(dev.kvlab.harness.bundle.CapacityFile.NOT_SEARCHED);
        String html = Files.readString(o.bundle().resolve("report.html"));
        assertThat(html).contains("baseline not searched");
        // the baseline searched: it is labelled (vs_baseline null), the other cell compared
        MatrixRunner.Outcome both = runner(scripted(x -> 1.0), null, 1)
                .run(spec(t, m.replace(", cells: {tiers: local-only}", "")), t.resolve("both"), false);
        JsonNode s = capacity(both.bundle()).get("summary");
        assertThat(s.get(0).get("vs_baseline").isNull()).isTrue();
        assertThat(s.get(1).get("vs_baseline").get("ratio").isObject()).isTrue();
    }
}
