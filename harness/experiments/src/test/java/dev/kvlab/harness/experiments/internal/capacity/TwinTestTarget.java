package dev.kvlab.harness.experiments.internal.capacity;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.twin.TwinCalibration;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.RunValidator;
import dev.kvlab.harness.core.internal.sim.TwinRun;
import java.util.function.Function;

/**
 * A target for the prediction's tests ({@code kind: twin-test}): an "engine" that is the emulated roofline of its
 * config's model and hardware run on the sim clock, {@code target.slowdown} times slower in compute and memory than
 * the calibration it gives ({@code slowdown: 1}: the engine is exactly its twin), {@code target.price_per_hour} its price;
 * it reports its steps at {@code slowdown} times their calibrated price ({@code engine_step_time_over_twin}).
 */
public final class TwinTestTarget implements dev.kvlab.harness.spi.TargetProvider {

    @Override
    public String kind() {
        return "twin-test";
    }

    @Override
    public String describe() {
        return "the twin's test engine";
    }

    @Override
    public boolean uses(String key) {
        return true;
    }

    @Override
    public void validate(RunConfig config, Function<String, String> origin) {}

    /**
     * The test engine's metadata round trip (emulated, not measured). It has no store path (its link figures NaN: its
     * cells have no remote tier).
     */
    static final long LOOKUP_NANOS = 10_000;

    static TwinCalibration calibration(RunConfig c, double slowdown) {
        CellPlan p = RunValidator.plan(c, k -> null);
        HardwareSpec h = p.hardware();
        HardwareSpec slow = new HardwareSpec(
                h.id(),
                h.name(),
                h.aliases(),
                h.source(),
                h.bf16Flops() / slowdown,
                h.fp8Flops(),
                h.hbmBandwidth() / slowdown,
                h.hbmCapacity(),
                h.hostLinkBandwidth(),
                h.prefillMfu(),
                h.decodeBandwidthUtilization(),
                h.attention(),
                h.kvLoad());
        return new TwinCalibration(
                "twin-test",
                p.model(),
                slow,
                c.kvDtype(),
                c.scheduler().maxBatchTokens(),
                c.scheduler().maxRunning(),
                c.cluster().instances(),
                Double.NaN,
                Double.NaN,
                LOOKUP_NANOS,
                dev.kvlab.harness.api.SummaryRow.builder().put("what", "test").build(),
                null);
    }

    @Override
    public String noTwin(RunConfig c) {
        return c.target().path("twin").asBoolean(true) ? null : "this engine has no twin";
    }

    @Override
    public TwinCalibration calibrate(RunConfig c) {
        return calibration(c, 1);
    }

    @Override
    public CellResult run(RunConfig c, long wallStartNanos, CellObserver observer) {
        double slowdown = c.target().path("slowdown").asDouble(1);
        CellResult r = TwinRun.run(c, calibration(c, slowdown));
        // what a real engine measures of itself: its steps against the twin's price of them (this one is slower by
        // construction)
        return new CellResult(
                r.config(),
                r.summary(),
                r.totals(),
                r.intervals(),
                r.requestLog(),
                r.extras().toBuilder()
                        .put(dev.kvlab.harness.api.Columns.ENGINE_STEP_TIME_OVER_TWIN.name(), slowdown)
                        .build(),
                r.describe(),
                r.handovers());
    }

    @Override
    public double pricePerHour(RunConfig c) {
        return c.target().has("price_per_hour")
                ? c.target().get("price_per_hour").asDouble() * c.cluster().instances()
                : Double.NaN;
    }
}
