package dev.kvlab.harness.internal;

import dev.kvlab.harness.internal.engine.EventLoop;
import dev.kvlab.harness.internal.engine.RemoteTier;
import dev.kvlab.harness.internal.engine.ServingListener;
import dev.kvlab.harness.internal.engine.WorkloadDriver;
import dev.kvlab.harness.internal.measure.Measurement;
import dev.kvlab.store.api.master.MasterStats;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What a sim cell and a live cell do differently, and nothing else: their clock (the event loop and how it runs
 * until a phase is over), their remote tier, their fault hooks and the figures only that clock has. The steps
 * both take are {@link CellSteps}.
 */
public interface CellClock {

    EventLoop loop();

    RemoteTier remote();

    /** Loop time at which a phase (warm-up or measured) starts its workload. */
    long phaseOrigin(boolean warmup);

    /** Runs the loop until {@code driver} is done (or failed) and the remote tier has nothing in flight. */
    void runPhase(WorkloadDriver driver);

    /** The measurement listener with this clock's fault trigger in front ({@code measurement} itself when the cell has no fault). */
    ServingListener faultWrapped(Measurement measurement, long origin, LongSupplier measuredRequests);

    /** The store master's stats now ({@code null}: not visible from this cell). */
    MasterStats masterStats();

    /** Calls made to the master so far, by operation (empty: not counted by this cell). */
    Map<String, Long> masterCalls();

    /** Called once, right before the measured phase starts (the live clock zeroes its overhead counters). */
    default void measuredPhaseStarts() {}

    /** This clock's own figures for the cell's extras, after the measured phase. */
    void extras(Measurement m, Map<String, Object> extras);

    /** What this clock emulates (for the summary's {@code emulated}). */
    String emulated();

    /** The clock, in a few words, for the report. */
    String describe();
}
