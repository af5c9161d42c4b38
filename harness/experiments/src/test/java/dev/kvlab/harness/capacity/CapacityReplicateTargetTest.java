package dev.kvlab.harness.capacity;

import static dev.kvlab.harness.capacity.CapacitySearchTest.capacity;
import static dev.kvlab.harness.capacity.CapacitySearchTest.runner;
import static dev.kvlab.harness.capacity.CapacitySearchTest.spec;
import static dev.kvlab.harness.capacity.CapacitySearchTest.withoutRunId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.bundle.BundleVerifier;
import dev.kvlab.harness.experiments.internal.matrix.CellExecutor;
import dev.kvlab.harness.experiments.internal.matrix.MatrixRunner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongToDoubleFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24: a searched cell whose capacity interval is wider than {@code capacity.half_width} gets more replicates
 * (seeds {@code seed + k} on) until it meets the target or reaches {@code capacity.max_replicates}; at the cap and still
 * wide it is flagged {@code wide} and says so; the paired comparison with the baseline pairs the seeds both ran; the new
 * keys are validated and recorded.
 */
class CapacityReplicateTargetTest {

    static final String BASE = CapacitySearchTest.ISO.replace("SLO", "1000");

    /**
     * A real sim run whose SLO attainment is replaced by a step at a knee that depends on the run's seed: every request
     * meets the SLO at or below the knee, a fifth above it (both decided at once), so each replicate's capacity is its
     * seed's knee to the search's precision.
     */
    static CellExecutor kneeBySeed(LongToDoubleFunction knee) {
        CellRunner real = new CellRunner();
        return (c, w, o) -> {
            CellResult r = real.run(c, w, o);
            CellSummary s = r.summary();
            double a = c.workload().arrival().rate() <= knee.applyAsDouble(c.seed()) ? 1.0 : 0.2;
            return r.withSummary(s.with(
                    Columns.SLO_ATTAINMENT,
                    Math.round(a * s.get(Columns.REQUESTS)) / (double) s.get(Columns.REQUESTS)));
        };
    }

    static String cap(String more) {
        return "capacity: {knob: workload.arrival.rate, start: 1, min: 0.01, max: 1000, target_attainment: 0.9, precision: 0.01, max_probes: 30"
                + more + "}\n";
    }

    static List<Integer> replicatesOf(JsonNode capacity, String cell) {
        List<Integer> out = new ArrayList<>();
        for (JsonNode e : capacity.get("cells"))
            if (e.get("cell").asText().equals(cell)) out.add(e.get("replicate").asInt());
        return out;
    }

    @Test
    void aWideCellGetsMoreReplicatesAndStopsAtTheTarget(@TempDir Path t) throws Exception {
        // seeds 3..6 (replicates 0-3): knees 10, 12, 10, 12 -> +-16.7% (over 15%); Stein's estimate asks for 5, so 2
        // more
        // are added (at least 2); seeds 7, 8 have knees 11, 11 -> 6 replicates within +-8.5%: done, far below the cap
        // of 12
        LongToDoubleFunction knee = seed -> seed <= 6 ? (seed % 2 == 1 ? 10 : 12) : 11;
        MatrixSpec s = spec(t, BASE + "replicates: 4\n" + cap(", half_width: 0.15, max_replicates: 12"));
        MatrixRunner.Outcome o = runner(kneeBySeed(knee), null, 1).run(s, t.resolve("a"), false);
        JsonNode c = capacity(o.bundle());
        String cell = c.get("summary").get(0).get("cell").asText();
        assertThat(replicatesOf(c, cell)).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(c.get("cells").get(5).get("seed").asLong()).isEqualTo(8);
        JsonNode sum = c.get("summary").get(0);
        assertThat(sum.get("replicates").asInt()).isEqualTo(6);
        JsonNode target = sum.get("replicate_target");
        assertThat(target.get("met").asBoolean()).isTrue();
        assertThat(target.get("replicates").asInt()).isEqualTo(6);
        assertThat(target.get("started_with").asInt()).isEqualTo(4);
        assertThat(target.get("max_replicates").asInt()).isEqualTo(12);
        assertThat(target.get("half_width_share").asDouble()).isBetween(0.05, 0.15);
        double[] ci = {
            sum.get("capacity").get("ci95").get(0).asDouble(),
            sum.get("capacity").get("ci95").get(1).asDouble()
        };
        assertThat((ci[1] - ci[0]) / 2)
                .isLessThanOrEqualTo(0.15 * sum.get("capacity").get("mean").asDouble());
        assertThat(CapacitySearchTest.flags(sum)).doesNotContain("wide");
        assertThat(target.get("text").asText()).contains("2 added");
        // every added replicate's probes are recorded runs of the bundle, and it verifies
        assertThat(o.bundle().resolve("cells/" + cell + "@1/r5/run.hlog")).exists();
        assertThat(BundleVerifier.verify(o.bundle())).isEmpty();
        // decided from the sim results only: with other parallelism, the same replicates and the same capacity.json
        MatrixRunner.Outcome two = runner(kneeBySeed(knee), null, 3).run(s, t.resolve("b"), false);
        assertThat(withoutRunId(capacity(two.bundle()))).isEqualTo(withoutRunId(c));
    }

    @Test
    void aCellAtItsCapStillWideIsFlaggedSayingItHitTheCap(@TempDir Path t) throws Exception {
        // knees alternate 10, 13 on every seed: +-15% after 6 replicates, never within 5%
        LongToDoubleFunction knee = seed -> seed % 2 == 1 ? 10 : 13;
        MatrixSpec s = spec(t, BASE + "replicates: 3\n" + cap(", half_width: 0.05, max_replicates: 6"));
        MatrixRunner.Outcome o = runner(kneeBySeed(knee), null, 1).run(s, t.resolve("a"), false);
        JsonNode c = capacity(o.bundle());
        JsonNode sum = c.get("summary").get(0);
        assertThat(replicatesOf(c, sum.get("cell").asText())).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(CapacitySearchTest.flags(sum)).contains("wide");
        assertThat(sum.get("replicate_target").get("met").asBoolean()).isFalse();
        assertThat(sum.get("replicate_target").get("text").asText())
                .contains("at max_replicates 6")
                .contains("not an answer");
        assertThat(c.get("wide_means").asText()).contains("max_replicates");
        assertThat(c.get("max_replicates").asInt()).isEqualTo(6);
        assertThat(c.get("half_width").asDouble()).isEqualTo(0.05);
        // the text table and the report say so next to the figure
        java.io.StringWriter text = new java.io.StringWriter();
        dev.kvlab.harness.report.text.CapacityText.print(new java.io.PrintWriter(text), c);
        assertThat(text.toString())
                .contains("reps")
                .contains(sum.get("cell").asText() + ": not within +-5% at max_replicates 6");
        assertThat(java.nio.file.Files.readString(o.bundle().resolve("report.html")))
                .contains("Replicates against the half-width target")
                .contains("at max_replicates 6");
        // without max_replicates nothing is added: the 3 replicates, flagged wide by the same target
        MatrixRunner.Outcome fixed = runner(kneeBySeed(knee), null, 1)
                .run(spec(t, BASE + "replicates: 3\n" + cap(", half_width: 0.05")), t.resolve("b"), false);
        JsonNode f = capacity(fixed.bundle()).get("summary").get(0);
        assertThat(f.get("replicates").asInt()).isEqualTo(3);
        assertThat(CapacitySearchTest.flags(f)).contains("wide");
        assertThat(f.get("replicate_target").get("text").asText()).contains("capacity.max_replicates would add more");
    }

    @Test
    void theBaselinePairsOnTheSeedsBothRan(@TempDir Path t) throws Exception {
        // output_tokens tells the cells apart: the baseline (32) has one knee on every seed, the other cell's knees
        // split
        CellRunner real = new CellRunner();
        CellExecutor exec = (cfg, w, o) -> {
            CellResult r = real.run(cfg, w, o);
            boolean base = cfg.workload().generator().path("output_tokens").asInt() == 32;
            double knee = base ? 10 : cfg.seed() % 2 == 1 ? 20 : 26;
            double a = cfg.workload().arrival().rate() <= knee ? 1.0 : 0.2;
            CellSummary s = r.summary();
            return r.withSummary(s.with(
                    Columns.SLO_ATTAINMENT,
                    Math.round(a * s.get(Columns.REQUESTS)) / (double) s.get(Columns.REQUESTS)));
        };
        MatrixSpec s = spec(
                t,
                BASE
                        + "factors: {workload.generator.output_tokens: [32, 33]}\nbaseline: {workload.generator.output_tokens: 32}\n"
                        + "replicates: 3\n" + cap(", half_width: 0.05, max_replicates: 5"));
        MatrixRunner.Outcome o = runner(exec, null, 1).run(s, t.resolve("a"), false);
        JsonNode sum = capacity(o.bundle()).get("summary");
        assertThat(sum.get(0).get("replicates").asInt()).isEqualTo(3); // the baseline agrees with itself: nothing added
        assertThat(sum.get(1).get("replicates").asInt()).isEqualTo(5);
        JsonNode vb = sum.get(1).get("vs_baseline");
        assertThat(vb.get("pairs").asInt()).isEqualTo(3);
        assertThat(vb.get("diff").get("n").asInt()).isEqualTo(3);
        assertThat(vb.get("ratio").get("n").asInt()).isEqualTo(3);
        // blocked by seed over the 3 seeds both cells ran: with one cell beside the baseline, the paired interval's df
        assertThat(vb.get("ratio").get("df").asInt()).isEqualTo(2);
        assertThat(vb.get("ratio").get("interval").asText())
                .contains("blocked by seed")
                .contains("2 cells");
    }

    @Test
    void theNewKeysAreValidatedAndRecorded(@TempDir Path t) throws Exception {
        String two = BASE + "replicates: 2\n";
        assertThatThrownBy(() -> spec(t, two + cap(", replicates: 8, max_replicates: 4")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.max_replicates")
                .hasMessageContaining("m.yaml:")
                .hasMessageContaining("below the 8 replicates");
        assertThatThrownBy(() -> spec(t, two + cap(", max_replicates: 1")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.max_replicates")
                .hasMessageContaining("matrix's replicates");
        assertThatThrownBy(() ->
                        spec(t, BASE + cap(", max_replicates: 4"))) // the matrix's 1 replicate: no interval to judge
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.max_replicates")
                .hasMessageContaining("at least 2");
        assertThatThrownBy(() -> spec(t, two + cap(", max_replicates: 1001")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.max_replicates")
                .hasMessageContaining("[1, 1000]");
        assertThatThrownBy(() -> spec(t, two + cap(", max_replicates: 4.5")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.max_replicates");
        for (String hw : List.of("0", "1", "-0.1", "ten"))
            assertThatThrownBy(() -> spec(t, two + cap(", half_width: " + hw)))
                    .as(hw)
                    .isInstanceOf(BadInputException.class)
                    .hasMessageContaining("capacity.half_width")
                    .hasMessageContaining("m.yaml:");
        assertThatThrownBy(() -> CapacityBoundsTest.load(t, two + cap(""), "capacity.half_width=2"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("--set capacity.half_width=2")
                .hasMessageContaining("capacity.half_width");
        // recorded as resolved (defaults filled in): the manifest's matrix.resolved.capacity, covered by the matrix
        // hash
        JsonNode r = spec(t, two + cap(", max_replicates: 6, half_width: 0.08"))
                .resolved()
                .get("capacity");
        assertThat(r.get("replicates").asInt()).isEqualTo(2);
        assertThat(r.get("max_replicates").asInt()).isEqualTo(6);
        assertThat(r.get("half_width").asDouble()).isEqualTo(0.08);
        JsonNode d = spec(t, two + cap("")).resolved().get("capacity");
        assertThat(d.get("max_replicates").asInt()).isEqualTo(2);
        assertThat(d.get("half_width").asDouble()).isEqualTo(0.10);
        assertThat(spec(t, two + cap(", max_replicates: 6")).sha256())
                .isNotEqualTo(spec(t, two + cap("")).sha256());
    }
}
