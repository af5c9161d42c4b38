package dev.kvlab.harness.metrics;

import dev.kvlab.harness.api.Metric;
import dev.kvlab.store.api.MasterStats;
import java.util.Map;

/**
 * What a running cell looked like at one sample: latency percentiles of the values recorded since the previous
 * sample (ms; NaN where none), cumulative counters of the measured phase, the queue, and the store. Immutable,
 * so a publishing thread can read it while the cell's thread makes the next one.
 *
 * @param runSeconds      run-clock seconds into the measured phase (virtual for sim)
 * @param percentilesMs   metric → {p50, p99, max} in ms
 * @param requests        requests arrived
 * @param completed       completed
 * @param failed          failed
 * @param good            completed within every SLO
 * @param localHitRatio   local-tier prompt tokens / prompt tokens (finished requests)
 * @param remoteHitRatio  store-fetched prompt tokens / prompt tokens
 * @param fetchedBytes    bytes fetched from the store
 * @param fallbacks       blocks planned for fetch but recomputed
 * @param wrongHitsUsed   wrong blocks used (must stay 0)
 * @param queued          requests waiting for admission
 * @param inFlight        requests in flight
 * @param store           the master's stats at the last store sample; {@code null} without a store
 * @param storeCalls      master calls by operation, cumulative
 * @param storeCallRates  master calls per run-clock second since the previous store sample
 * @param last            the measured phase's final sample
 * @param engine          a real engine's own counters so far, by summary column (empty for an emulated target)
 * @param storePath       whether kvlab's store path serves the cell: without it fetched bytes, fallbacks and wrong hits
 *                        do not apply (a real engine's own cache behind an endpoint) and are not published
 */
public record CellSample(
        double runSeconds,
        Map<Metric, double[]> percentilesMs,
        long requests,
        long completed,
        long failed,
        long good,
        double localHitRatio,
        double remoteHitRatio,
        long fetchedBytes,
        long fallbacks,
        long wrongHitsUsed,
        int queued,
        long inFlight,
        MasterStats store,
        Map<String, Long> storeCalls,
        Map<String, Double> storeCallRates,
        boolean last,
        Map<String, Double> engine,
        boolean storePath) {

    /** Index of p50, p99 and max in {@link #percentilesMs()}'s arrays. */
    public static final int P50 = 0, P99 = 1, MAX = 2;

    /** Good requests per run-clock second so far (NaN before any time passed). */
    public double goodputRps() {
        return runSeconds > 0 ? good / runSeconds : Double.NaN;
    }

    /** Good / finished so far (NaN before any finished). */
    public double sloAttainment() {
        long finished = completed + failed;
        return finished == 0 ? Double.NaN : (double) good / finished;
    }

    public double percentileMs(Metric m, int which) {
        double[] p = percentilesMs.get(m);
        return p == null ? Double.NaN : p[which];
    }
}
