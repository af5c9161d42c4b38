package dev.kvlab.harness.spi;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.transport.api.TransportModel;

/**
 * The sim twin of a real engine as the framework planned it ({@link TargetFramework#twinPlan}): the emulated model on
 * the engine's calibrated shape and "hardware", with the run's store. A target reads it, probes the store path the twin
 * runs on ({@link #probeLink}) and runs the twin ({@link #withTwin}) through it.
 */
public interface TwinPlan extends StorePlan {

    /** The model the twin runs (the engine's shape). */
    ModelSpec model();

    /** The engine's calibrated "hardware". */
    HardwareSpec hardware();

    /** The twin's time model of one instance. */
    Roofline roofline();

    /** Measures this plan's store path through {@code store} on {@code loop} (the loop not running): the link the twin runs on. */
    LinkProbe probeLink(LiveClock loop, AuditedStore store) throws InterruptedException;

    /**
     * {@code live} with its twin attached: this plan run on the sim clock over {@code link} with {@code lookupNanos} per
     * lookup, and {@code more} (the twin's own figures).
     */
    default CellResult withTwin(CellResult live, TransportModel link, long lookupNanos, Figures more) {
        return withTwin(live, link, null, lookupNanos, more);
    }

    /**
     * As {@link #withTwin(CellResult, TransportModel, long, Figures)}, a disaggregated prompt's handover priced on the
     * legs {@code handoff} in turn (the path the cell measured for it; each leg a link the handovers on it share)
     * instead of one transfer on {@code link}; null or empty: on {@code link}.
     */
    CellResult withTwin(
            CellResult live,
            TransportModel link,
            java.util.List<TransportModel> handoff,
            long lookupNanos,
            Figures more);
}
