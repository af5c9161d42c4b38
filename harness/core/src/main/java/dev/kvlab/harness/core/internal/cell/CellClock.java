package dev.kvlab.harness.core.internal.cell;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.spi.EventLoop;
import dev.kvlab.harness.spi.Server;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.harness.core.internal.engine.WorkloadDriver;
import dev.kvlab.harness.core.internal.measure.Measurement;
import dev.kvlab.store.api.MasterStats;
import dev.kvlab.workloads.api.ArrivalProcess;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What one kind of cell does differently, and nothing else: its clock (the event loop and how it runs until a
 * phase is over), what serves its requests (the emulated model with its remote tier, or a real engine), its fault
 * hooks, the figures only it has and how its result is assembled. The steps every cell takes are {@link CellSteps}.
 */
public interface CellClock {

    EventLoop loop();

    /** What serves the cell's requests on {@link #loop()}: made once, on the first call. */
    Server server();

    /** Fetched blocks used that the audit found wrong, so far (a progress figure; 0 where nothing is fetched). */
    long wrongHitsUsed();

    /**
     * Whether kvlab's own store path serves the cell's fetches, so that fetched bytes, fallbacks and wrong hits are
     * its figures (false for a real engine behind an endpoint, whose cache kvlab neither fetches from nor audits).
     */
    default boolean storePath() { return true; }

    /** Loop time at which a phase (warm-up or measured) starts its workload. */
    long phaseOrigin(boolean warmup);

    /** Runs the loop until {@code driver} is done (or failed) and the server has nothing in flight. */
    void runPhase(WorkloadDriver driver);

    /** The measurement listener with this clock's fault trigger in front ({@code measurement} itself when the cell has no fault). */
    ServingListener faultWrapped(Measurement measurement, long origin, LongSupplier measuredRequests);

    /** The store master's stats now ({@code null}: not visible from this cell). */
    MasterStats masterStats();

    /** Calls made to the master so far, by operation (empty: not counted by this cell). */
    Map<String, Long> masterCalls();

    /** True once the server can serve nothing more (a real target that died): the cell stops sending, those in flight end. */
    default boolean serverGone() {
        return false;
    }

    /**
     * The arrivals this cell sends of a phase's whole arrival process ({@code whole} itself unless the cell sends a
     * share of the stream, as a request-split shard does).
     */
    default ArrivalProcess arrivals(ArrivalProcess whole) {
        return whole;
    }

    /**
     * How a hot cell's warm-up pass ({@code whole}: its requests as the workload times them) is sent: {@code whole} itself
     * (default: at the workload's times), or faster where the clock is a wall clock and only the state the pass leaves
     * matters ({@link dev.kvlab.harness.core.internal.live.UnpacedWarmup}).
     */
    default ArrivalProcess warmupArrivals(ArrivalProcess whole) {
        return whole;
    }

    /**
     * A hot cell whose target is primed already (a capacity probe on an engine kept from an earlier probe of the same
     * cell, whose warm-up left the state this one's would): the warm-up requests that primed it, and the warm-up is
     * not run again; -1 (default): run the warm-up.
     */
    default long primedBy() {
        return -1;
    }

    /** Called once, right before the measured phase starts (the live clock zeroes its overhead counters). */
    default void measuredPhaseStarts() {}

    /**
     * The target's own counters over the measured phase so far, by summary column (a real engine's cache counters,
     * {@link dev.kvlab.harness.api.Columns#ENGINE_LOCAL_HIT_RATIO}, ...); empty where the target has none. Loop thread.
     */
    default Map<String, Double> engineCounters() {
        return Map.of();
    }

    /** This clock's own figures for the cell's extras, after the measured phase. */
    void extras(Measurement m, Figures extras);

    /** The clock, in a few words, for the report. */
    String describe();

    /**
     * The cell's result from its finished measurement: the summary, its histograms and records, {@code extras} (the
     * steps' and this clock's figures) and {@code describe} (what ran), with what only this kind of cell adds.
     */
    CellResult assemble(Measurement m, long warmupRequests, double wallSeconds, Figures extras, Map<String, String> describe);
}
