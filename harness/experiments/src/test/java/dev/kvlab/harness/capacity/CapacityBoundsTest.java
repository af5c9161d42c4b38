package dev.kvlab.harness.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.experiments.internal.capacity.Bracket;
import dev.kvlab.harness.experiments.internal.capacity.CapacitySearch;
import dev.kvlab.harness.experiments.internal.matrix.MatrixParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26: every numeric key of a capacity block is range-checked when the block is read (a whole number is refused
 * out of range, never wrapped), loads are bounded per knob, a load's text in a probe id (a cell directory name) is
 * bounded and unique, and the config binder refuses an integer it would otherwise truncate.
 */
class CapacityBoundsTest {

    static final String BASE = CapacitySearchTest.ISO.replace("SLO", "1000");

    static MatrixSpec load(Path t, String yaml, String... sets) throws Exception {
        Path f = t.resolve("m.yaml");
        Files.writeString(f, yaml);
        return MatrixParser.load(f, List.of(sets), null);
    }

    @Test
    void wholeNumberKeysAreRefusedOutOfRangeNotWrapped(@TempDir Path t) throws Exception {
        String cap = "capacity: {knob: workload.arrival.rate, start: 1}\n";
        // 2^32 + 1 wrapped to 1 probe per search; 3e9 to a negative int
        assertThatThrownBy(() -> load(t, BASE + cap, "capacity.max_probes=4294967297"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("--set capacity.max_probes=4294967297")
                .hasMessageContaining("capacity.max_probes");
        assertThatThrownBy(() ->
                        load(t, BASE + "capacity: {knob: workload.arrival.rate, start: 1, max_probes: 3000000000}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("m.yaml:")
                .hasMessageContaining("capacity.max_probes");
        assertThatThrownBy(
                        () -> load(
                                t,
                                BASE
                                        + "capacity: {knob: workload.arrival.rate, start: 1, max_probes: 99999999999999999999999}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.max_probes");
        assertThatThrownBy(() -> load(t, BASE + cap, "capacity.min_requests=1e30"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.min_requests");
        assertThatThrownBy(() -> load(t, BASE + "capacity: {knob: workload.arrival.rate, start: 1, budget: 1e300}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.budget");
        assertThatThrownBy(
                        () -> load(t, BASE + "capacity: {knob: workload.arrival.rate, start: 1, min_duration: -1}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.min_duration");
        assertThatThrownBy(() -> load(t, BASE + cap, "capacity.precision=NaN"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.precision");
        assertThat(load(t, BASE + cap, "capacity.max_probes=1000").capacity().maxProbes())
                .isEqualTo(1000);
    }

    @Test
    void absurdLoadsAreRefusedBeforeAnythingRuns(@TempDir Path t) throws Exception {
        String cap = "capacity: {knob: workload.arrival.rate, start: 1}\n";
        assertThatThrownBy(() -> load(t, BASE + cap, "capacity.start=1e300", "capacity.max=1e301"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.start")
                .hasMessageContaining("sane range");
        assertThatThrownBy(() -> load(t, BASE + cap, "capacity.max=1e7"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.max");
        assertThatThrownBy(() -> load(t, BASE + cap, "capacity.min=1e-300"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.min");
        // the default max (start x 1000) stays within the bound
        assertThat(load(t, BASE + cap, "capacity.start=100000").capacity().max())
                .isEqualTo(1e6);
    }

    @Test
    void aLoadsTextInAProbeIdIsBoundedAndUnique(@TempDir Path t) throws Exception {
        Set<String> seen = new HashSet<>();
        for (double x : new double[] {
            1e300,
            Math.nextUp(1e300),
            1e-300,
            Math.nextUp(1e-300),
            0.1 + 0.2,
            0.3,
            4,
            1.0 / 3,
            123456789.123456789,
            Math.nextUp(123456789.123456789),
            Double.MAX_VALUE,
            Double.MIN_VALUE
        }) {
            String l = Bracket.label(x);
            assertThat(l).hasSizeLessThanOrEqualTo(24).matches("[0-9.E-]+");
            assertThat(Double.parseDouble(l)).isEqualTo(x);
            assertThat(seen.add(l)).as("distinct label for %s", x).isTrue();
        }
        assertThat(Bracket.label(4)).isEqualTo("4");
        assertThat(Bracket.label(0.375)).isEqualTo("0.375");
        MatrixSpec s = load(t, BASE + "capacity: {knob: workload.arrival.rate, start: 1}\n");
        CellRun p = new CapacitySearch(s).probe(s.runs().get(0), 1e-6 / 3);
        assertThat(p.cell().substring(p.cell().indexOf('@') + 1)).hasSizeLessThanOrEqualTo(24);
    }

    @Test
    void theConfigBinderRefusesAnIntegerItWouldTruncate(@TempDir Path t) throws Exception {
        assertThatThrownBy(() -> load(t, BASE.replace("instances: 1,", "instances: 2.5,")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("m.yaml:")
                .hasMessageContaining("cluster.instances")
                .hasMessageContaining("2.5");
        assertThatThrownBy(() -> load(t, BASE.replace("instances: 1,", "instances: 4294967297,")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("cluster.instances")
                .hasMessageContaining("out of range");
        assertThatThrownBy(() -> load(t, BASE.replace("instances: 1,", "instances: 1e30,")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("cluster.instances");
        assertThatThrownBy(() -> load(t, BASE.replace("seed: 3", "seed: 1e30")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("seed");
        assertThatThrownBy(() -> load(t, BASE.replace("seed: 3", "seed: 3.5")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("seed");
        assertThatThrownBy(() -> load(t, BASE, "cluster.instances=4294967297"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("--set cluster.instances=4294967297");
        assertThat(load(t, BASE.replace("instances: 1,", "instances: 2.0,"))
                        .runs()
                        .get(0)
                        .config()
                        .cluster()
                        .instances())
                .isEqualTo(2);
    }
}
