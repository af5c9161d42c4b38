package dev.kvlab.harness.spi;

import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.store.api.MasterStats;
import dev.kvlab.workloads.api.ArrivalProcess;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What one cell of a target does, and nothing else: its clock, what serves its requests, the figures only it has and
 * the summary columns only it knows. The framework ({@link TargetFramework#run}) takes the steps every cell takes —
 * warm-up, measured phase, the one measurement on the loop's clock, the check that nothing is left in flight — and
 * builds the row: the columns every target measures the same way, then this cell's {@link #summary}, its extras and
 * {@link #describe}. The target measures nothing: its {@link Server} reports each request's events to the framework's
 * listener. Every target's cells are these, the emulated model's on both clocks included: the one set of hooks the
 * framework's steps call.
 */
public interface TargetCell {

    /** The clock the cell runs on (made before the framework runs the cell). */
    EventLoop loop();

    /** What serves the cell's requests on {@link #loop()}. */
    Server server();

    /**
     * Whether kvlab's own store path serves the cell's fetches (a tier the target asked the framework for,
     * {@link TargetFramework#audited}), so that the framework's hit ratios, fetched bytes and fallbacks are its figures
     * (false by default: a real engine behind an endpoint, whose cache kvlab neither fetches from nor audits).
     */
    default boolean storePath() {
        return false;
    }

    /** Fetched blocks used that the audit found wrong, so far (a progress figure; 0 by default). */
    default long wrongHitsUsed() {
        return 0;
    }

    /** The store master's stats now (null by default: not visible from this cell). */
    default MasterStats masterStats() {
        return null;
    }

    /** Calls made to the store master so far, by operation (empty by default). */
    default Map<String, Long> masterCalls() {
        return Map.of();
    }

    /**
     * The framework's measurement listener with this cell's fault trigger in front ({@code measurement} itself by
     * default: no fault); {@code measuredRequests} counts the measured phase's requests (a pass over the workload: ask only when needed).
     */
    default ServingListener faultWrapped(ServingListener measurement, long origin, LongSupplier measuredRequests) {
        return measurement;
    }

    /** Loop time at which a phase (warm-up or measured) starts its workload. */
    long phaseOrigin(boolean warmup);

    /** Runs the loop until {@code driver} is done (or failed) and the server has nothing in flight. */
    void runPhase(PhaseDriver driver);

    /** True once the server can serve nothing more (a real target that died): the cell stops sending, those in flight end. */
    default boolean serverGone() {
        return false;
    }

    /** The arrivals this cell sends of a phase's whole arrival process ({@code whole} unless it sends a share of the stream). */
    default ArrivalProcess arrivals(ArrivalProcess whole) {
        return whole;
    }

    /**
     * Whether a cold cell gets the warm-up pass too: true where that pass leaves nothing a measured request could hit
     * (no cache tier keeps anything of a request), so it warms the engine (its code compiled, its memory touched) and
     * primes nothing, as a serving benchmark's warm-up requests do; false (default): a cold cell runs none.
     */
    default boolean warmsColdCells() {
        return false;
    }

    /** How a hot cell's warm-up pass is sent: {@code whole} (its requests at the workload's times) by default. */
    default ArrivalProcess warmupArrivals(ArrivalProcess whole) {
        return whole;
    }

    /**
     * A cell with a warm-up pass whose target is primed already: the warm-up requests that primed it; -1 (default): run
     * the warm-up.
     */
    default long primedBy() {
        return -1;
    }

    /** Called once, right before the measured phase starts. */
    default void measuredPhaseStarts() {}

    /** The target's own counters over the measured phase so far, by summary column (progress); empty by default. Loop thread. */
    default Map<String, Double> engineCounters() {
        return Map.of();
    }

    /** This cell's own figures for the extras, after the measured phase (registered {@link dev.kvlab.harness.api.Columns}). */
    void extras(MeasurementView m, Figures extras);

    /** The clock, in a few words, for the report. */
    String describe();

    /**
     * The summary columns only this target knows, put on {@code row} after the framework's measured ones (latencies,
     * counts, goodput, throughput, seed, mode, cache state; where {@link #storePath}, the hit ratios of kvlab's tiers,
     * fetched bytes and fallbacks); {@code extras} are the cell's extras so far.
     */
    void summary(CellSummary.Builder row, Figures extras);

    /**
     * Last words on the row: {@code extras} (the framework's and {@link #extras}'s, the warm-up count first) and
     * {@code describe} (the clock and the workload so far), in the order they are to be shown.
     */
    default void finish(Figures extras, Map<String, String> describe) {}
}
