package dev.kvlab.harness.api;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.input.BadInputException;
import org.junit.jupiter.api.Test;

class MachineMemoryTest {

    @Test
    void aSegmentFitsNinetyPercentOfWhatIsAvailable() {
        assertThatCode(() -> new MachineMemory(64L << 30, 32L << 30).checkSegmentFits("--segment", "8GiB", 8L << 30))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> new MachineMemory(8L << 30, 6L << 30).checkSegmentFits("--segment", "8GiB", 8L << 30))
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("--segment 8GiB: more than this machine can give now")
                .hasMessageContaining("6GiB of memory available")
                .hasMessageEndingWith("use --segment 5529MiB or less");
        assertThatThrownBy(() -> new MachineMemory(0, 0).checkSegmentFits("--segment", "2048TiB", 2048L << 40))
                .hasMessageContaining("more than a store segment can be");
        assertThatCode(() -> new MachineMemory(0, 0).checkSegmentFits("--segment", "1TiB", 1L << 40))
                .as("unknown memory: no guess")
                .doesNotThrowAnyException();
    }
}
