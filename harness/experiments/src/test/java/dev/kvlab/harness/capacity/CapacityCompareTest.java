package dev.kvlab.harness.capacity;

import static dev.kvlab.harness.capacity.CapacitySearchTest.runner;
import static dev.kvlab.harness.capacity.CapacitySearchTest.scripted;
import static dev.kvlab.harness.capacity.CapacitySearchTest.spec;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.bundle.BundleComparison;
import dev.kvlab.harness.experiments.internal.matrix.MatrixRunner;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 26: {@code kvlab compare} of two capacity bundles compares the capacities cell by cell (Welch interval, B / A). */
class CapacityCompareTest {

    @Test
    void twoCapacityBundlesAreComparedCellByCell(@TempDir Path t) throws Exception {
        String m =
                CapacitySearchTest.ISO.replace("SLO", "1000") + "replicates: 2\nfactors: {tiers: [none, local-only]}\n"
                        + "capacity: {knob: workload.arrival.rate, start: 1, max: 1000, precision: 0.05}\n";
        // A's knee near 3, B's near 6 (the same for every replicate: a zero-width interval that excludes 0)
        MatrixRunner.Outcome a =
                runner(scripted(x -> x <= 3 ? 1.0 : 0.1), null, 1).run(spec(t, m), t.resolve("a"), false);
        MatrixRunner.Outcome b =
                runner(scripted(x -> x <= 6 ? 1.0 : 0.1), null, 1).run(spec(t, m), t.resolve("b"), false);
        ObjectNode r = BundleComparison.compare(a.bundle(), b.bundle());
        JsonNode cap = r.get("capacity");
        assertThat(cap).as("capacity section of %s", r).isNotNull();
        assertThat(cap.get("knob_a").asText()).isEqualTo("workload.arrival.rate");
        assertThat(cap.get("cells")).hasSize(2);
        for (JsonNode c : cap.get("cells")) {
            assertThat(c.get("a").asDouble()).isBetween(2.8, 3.0);
            assertThat(c.get("b").asDouble()).isBetween(5.7, 6.0);
            assertThat(c.get("diff").asDouble())
                    .isCloseTo(
                            c.get("b").asDouble() - c.get("a").asDouble(), org.assertj.core.data.Offset.offset(1e-9));
            assertThat(c.get("ratio").asDouble()).isGreaterThan(1.9);
            assertThat(c.get("n_a").asInt()).isEqualTo(2);
            assertThat(c.get("ci95").isArray()).isTrue();
            assertThat(c.get("significant").asBoolean()).isTrue();
        }
        assertThat(cap.get("only_in_a")).isEmpty();
        // a bundle compared with itself: no difference
        JsonNode same = BundleComparison.compare(a.bundle(), a.bundle())
                .get("capacity")
                .get("cells")
                .get(0);
        assertThat(same.get("diff").asDouble()).isZero();
        assertThat(same.get("significant").asBoolean()).isFalse();
    }
}
