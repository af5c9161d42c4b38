package dev.kvlab.harness.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.input.BadOptionException;
import dev.kvlab.harness.benchmark.api.CalibrationSettings;
import dev.kvlab.harness.benchmark.api.StoreTarget;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code kvlab calibrate} is asked, as the benchmark module reads it. */
class CalibrationSettingsTest {

    private static final List<String> KNOWN = List.of("local", "rdma-emu", "shm", "tcp");

    @Test
    void readsTransportsInOrderWithoutRepeatsOrBlanks() {
        CalibrationSettings s =
                CalibrationSettings.parse(KNOWN, Arrays.asList(" tcp", "local", "tcp", ""), "500ms", "40gbps@5us");
        assertThat(s.transports()).containsExactly("tcp", "local");
        assertThat(s.duration()).isEqualTo(Duration.ofMillis(500));
        assertThat(s.link().toString()).contains("40");
        assertThat(CalibrationSettings.parse(KNOWN, null, "1s", null).transports())
                .isEqualTo(KNOWN);
        assertThat(CalibrationSettings.parse(KNOWN, null, "1s", null).link()).isNull();
    }

    @Test
    void refusesWhatCannotBeMeasured() {
        assertThatThrownBy(() -> CalibrationSettings.parse(KNOWN, List.of("nosuch"), "1s", null))
                .isInstanceOf(BadOptionException.class)
                .hasMessage("unknown transport 'nosuch' (known: local, rdma-emu, shm, tcp)");
        assertThatThrownBy(() -> CalibrationSettings.parse(KNOWN, List.of(" "), "1s", null))
                .isInstanceOf(BadOptionException.class)
                .hasMessageStartingWith("--transports names no transport");
        assertThatThrownBy(() -> CalibrationSettings.duration("0s"))
                .isInstanceOf(BadOptionException.class)
                .hasMessage("--duration must be > 0 and <= 10m");
        assertThatThrownBy(() -> CalibrationSettings.duration("11m")).isInstanceOf(BadOptionException.class);
        assertThatThrownBy(() -> CalibrationSettings.duration("forever"))
                .isInstanceOf(BadOptionException.class)
                .hasMessageContaining("forever");
        assertThatThrownBy(() -> CalibrationSettings.parse(KNOWN, null, "1s", "3xx"))
                .isInstanceOf(BadOptionException.class)
                .hasMessageContaining("3xx");
    }

    @Test
    void aStoreTargetIsKvlabHostPort() {
        assertThat(StoreTarget.parse("kvlab://10.0.0.2:7000"))
                .isEqualTo(new StoreTarget("kvlab://10.0.0.2:7000", "10.0.0.2", 7000));
        assertThatThrownBy(() -> StoreTarget.parse("redis://h:1"))
                .isInstanceOf(BadOptionException.class)
                .hasMessageStartingWith("--target must be");
        assertThatThrownBy(() -> StoreTarget.parse("kvlab://h:0"))
                .isInstanceOf(BadOptionException.class)
                .hasMessageContaining("port must be 1..65535");
        assertThatThrownBy(() -> StoreTarget.parse("kvlab://h:99999"))
                .isInstanceOf(BadOptionException.class)
                .hasMessageContaining("got 99999");
    }
}
