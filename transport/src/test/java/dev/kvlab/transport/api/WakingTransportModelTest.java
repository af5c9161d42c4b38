package dev.kvlab.transport.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** A measured path's wake after idle: nothing in use, a ramp over short spells, all of it after a long one. */
class WakingTransportModelTest {

    private final LinearTransportModel base = new LinearTransportModel("tcp-measured", false, 0, 0, 2e9, 2e9);
    private final WakingTransportModel m = new WakingTransportModel(base, 400e-6);

    @Test
    void aBatchCostsWhatTheBaseSays() {
        assertThat(m.batchSeconds(2_000_000, 4, 2)).isEqualTo(base.batchSeconds(2_000_000, 4, 2));
        assertThat(m.name()).isEqualTo("tcp-measured");
        assertThat(m.emulated()).isFalse();
    }

    @Test
    void theWakeGrowsWithTheIdleSpell() {
        assertThat(m.wakeSeconds(0)).isZero();
        assertThat(m.wakeSeconds(WakingTransportModel.FROM_NANOS)).isZero();
        double mid = m.wakeSeconds((WakingTransportModel.FROM_NANOS + WakingTransportModel.FULL_NANOS) / 2);
        assertThat(mid).isCloseTo(200e-6, within(1e-9));
        assertThat(m.wakeSeconds(WakingTransportModel.FULL_NANOS)).isEqualTo(400e-6);
        assertThat(m.wakeSeconds(10_000_000_000L)).isEqualTo(400e-6);
        assertThat(base.wakeSeconds(10_000_000_000L))
                .as("a modelled link never wakes")
                .isZero();
    }

    @Test
    void aNegativeOrUnknownWakeIsRefused() {
        assertThatThrownBy(() -> new WakingTransportModel(base, -1e-6)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WakingTransportModel(base, Double.NaN))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
