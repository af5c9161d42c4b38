package dev.kvlab.harness.experiments.internal.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.CapacitySpec;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The cause a missed capacity prediction is given: when the engine's steps at capacity took more (or less) than the
 * twin's calibration charges for those very steps, that is named before any reading of the latencies.
 */
class PredictionCauseTest {

    private static final CapacitySpec SPEC = new CapacitySpec(
            "workload.arrival.rate",
            1,
            0.1,
            100,
            0.9,
            "attainment",
            0.15,
            8,
            1,
            0,
            0,
            true,
            Map.of(),
            8,
            0,
            0,
            0.10,
            true);

    private static String cause(double error, double stepOverTwin) {
        return PredictionCheck.cause(error, 300, 310, 20, 21, 0.9, 0.9, Double.NaN, Double.NaN, stepOverTwin, SPEC);
    }

    @Test
    void anEngineThatRanSlowerThanItsCalibrationIsTheCause() {
        assertThat(cause(0.28, 1.24))
                .contains("optimistic (+28%)")
                .contains("steps took 1.24×")
                .contains("ran slower than when it was calibrated");
        assertThat(cause(-0.22, 0.81)).contains("pessimistic (-22%)").contains("ran faster");
        // within 10% of its price, or not priced: the latencies are read instead
        assertThat(cause(0.28, 1.06)).doesNotContain("steps took").contains("near the knee");
        assertThat(cause(0.28, Double.NaN)).doesNotContain("steps took");
    }
}
