package dev.kvlab.harness.api;

import dev.kvlab.store.api.MasterStats;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The state of a running cell at the end of one measurement interval, as seen by a {@link CellObserver}: the
 * interval's histograms, the measured phase's counters so far, the queue and the shared store. A view on the
 * cell's live state, valid only during {@link CellObserver#intervalEnded}; the costly parts ({@link #store()})
 * are computed only when asked for.
 */
public interface CellProgress {

    /** True for the cuts made as the measured phase ends (observers take their final sample then). */
    boolean last();

    /** Run-clock seconds (virtual for sim) from the start of the measured phase to the end of this interval. */
    double runSeconds();

    /** The interval's histogram of {@code m} (µs); reused after the call, so copy or merge it. */
    Histogram interval(Metric m);

    /** Requests that arrived in the measured phase so far. */
    long requests();

    long completed();

    long failed();

    /** Completed requests that met every SLO given. */
    long good();

    /** Prompt tokens of finished (completed or failed) requests. */
    long inputTokens();

    /** Of which served by the local tier. */
    long localHitTokens();

    /** Of which fetched from the store and verified. */
    long remoteHitTokens();

    long fetchedBytes();

    /** Blocks planned for fetch but recomputed. */
    long fallbackBlocks();

    /** Fetched blocks used that the audit found wrong (must stay 0). */
    long wrongHitsUsed();

    /**
     * Whether kvlab's store path serves this cell, so that {@link #fetchedBytes()}, {@link #fallbackBlocks()} and
     * {@link #wrongHitsUsed()} are figures (false: they do not apply, e.g. a real engine's own cache behind an endpoint).
     */
    default boolean storePath() {
        return true;
    }

    /** Requests waiting for admission, over all instances. */
    int queued();

    /** Requests in flight (arrived, not finished), warm-up excluded or not as the cell counts them. */
    long inFlight();

    /** The store master's stats now; {@code null} when the cell has no shared store. Walks the master's objects. */
    MasterStats store();

    /** Calls made to the store master so far, by operation ({@code exists}, {@code get_replica_list}, …). */
    Map<String, Long> storeCalls();

    /**
     * A real engine's own counters over the measured phase so far, by summary column ({@code engine_local_hit_ratio},
     * {@code engine_external_hit_ratio}, {@code engine_prompt_tokens}, {@code engine_cached_prompt_tokens}; NaN where
     * it reports nothing); empty for an emulated target.
     */
    default Map<String, Double> engineCounters() {
        return Map.of();
    }
}
