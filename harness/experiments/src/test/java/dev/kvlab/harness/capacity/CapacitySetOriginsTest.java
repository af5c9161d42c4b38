package dev.kvlab.harness.capacity;

import static dev.kvlab.harness.capacity.CapacityBoundsTest.load;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.input.BadInputException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 26 (decided): an error a {@code --set capacity.…} causes names that --set, never an unrelated line of the file. */
class CapacitySetOriginsTest {

    static final String M = CapacityBoundsTest.BASE + "factors: {tiers: [none, local-only]}\n";
    static final String BLOCK = "capacity: {knob: workload.arrival.rate, start: 1}\n";

    @Test
    void aCapacitySetErrorNamesTheSet(@TempDir Path t) throws Exception {
        assertThatThrownBy(() -> load(t, M + BLOCK, "capacity.cells.tiers=nope"))
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("--set capacity.cells.tiers=nope:")
                .hasMessageContaining("'nope'");
        assertThatThrownBy(() -> load(t, M + BLOCK, "capacity.cells={tiers: nope}"))
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("--set capacity.cells={tiers: nope}:");
        // no block in the file: the --set options made it, and a missing key says so instead of blaming the file's
        // first line
        assertThatThrownBy(() -> load(t, M, "capacity.start=1"))
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("--set capacity.start=1")
                .hasMessageContaining("no capacity: block")
                .hasMessageContaining("capacity.knob: missing")
                .hasMessageNotContaining("m.yaml");
        assertThatThrownBy(() -> load(t, M + BLOCK, "capacity.foo.bar=1"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("--set capacity.foo.bar=1")
                .hasMessageContaining("not a capacity key");
        // a key the file gives is still blamed on its line
        assertThatThrownBy(
                        () -> load(t, M + "capacity: {knob: workload.arrival.rate, start: 1, cells: {tiers: nope}}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("m.yaml:");
        // and the nested --set works
        assertThat(load(t, M + BLOCK, "capacity.cells.tiers=local-only")
                        .capacity()
                        .cells())
                .containsKey("tiers");
    }
}
