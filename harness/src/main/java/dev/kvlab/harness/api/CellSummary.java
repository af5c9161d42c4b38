package dev.kvlab.harness.api;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The summary of one cell run: one row of {@code summary.csv} without the matrix runner's {@code cell} and
 * {@code replicate} columns, plus a few extra figures. {@link #columns()} gives the snake_case names in
 * DESIGN.md's column order followed by the extras. Percentiles are HdrHistogram's, in milliseconds; NaN when the
 * metric has no values (e.g. fetch latency in a run that fetched nothing).
 *
 * @param seed                  the run's seed
 * @param mode                  {@code sim} or {@code live}
 * @param cacheState            factor
 * @param tiers                 factor
 * @param policy                factor
 * @param transport             factor
 * @param pd                    factor
 * @param requests              measured requests
 * @param completed             of which completed
 * @param failed                of which failed
 * @param goodputRps            requests per second that met every SLO given (over {@code simulatedSeconds})
 * @param sloAttainment         good / requests
 * @param localHitRatio         prompt tokens served by the local tier / prompt tokens
 * @param remoteHitRatio        prompt tokens fetched from the store (verified) / prompt tokens
 * @param fetchedBytes          bytes fetched from the store
 * @param fallbacks             blocks planned for fetch but recomputed because their fetch failed
 * @param wrongHitsUsed         fetched blocks used that the verifier's audit found wrong (must be 0)
 * @param simulatedSeconds      span of the measured phase in the run's own clock (virtual in sim)
 * @param wallSeconds           wall-clock time of the run, config load to result
 * @param throughputRps         completed / simulatedSeconds
 * @param outputTokensPerSecond output tokens / simulatedSeconds
 * @param remoteAvailableRatio  prompt tokens the store held in continuation of local hits / prompt tokens (before the policy)
 * @param writtenBackBytes      bytes written back to the store
 * @param rejectedBlocks        fetched blocks that failed verification (or expired, or vanished)
 * @param model                 model id
 * @param hardware              hardware id
 * @param instances             engine instances
 * @param tp                    GPUs per instance
 * @param emulated              what is emulated in this run
 * @param prefillGpuMsMean      PD disaggregated, cold: modelled GPU-busy time of the prefill instances per measured request,
 *                              ms (the Mooncake paper's "prefill GPU time"); NaN otherwise (colocated batches mix decode in)
 */
public record CellSummary(long seed, String mode, String cacheState, String tiers, String policy, String transport, String pd,
                          long requests, long completed, long failed, Map<Metric, double[]> percentilesMs, double goodputRps,
                          double sloAttainment, double localHitRatio, double remoteHitRatio, long fetchedBytes, long fallbacks,
                          long wrongHitsUsed, double simulatedSeconds, double wallSeconds, double throughputRps,
                          double outputTokensPerSecond, double remoteAvailableRatio, long writtenBackBytes, long rejectedBlocks,
                          String model, String hardware, int instances, int tp, String emulated, double prefillGpuMsMean) {

    /** The p50 (index 0) and p99 (index 1) of {@code m} in ms. */
    public double p50Ms(Metric m) {
        return percentilesMs.get(m)[0];
    }

    /** The mean of {@code m} in ms (index 2, HdrHistogram's mean; NaN when absent); the Mooncake paper reports means. */
    public double meanMs(Metric m) {
        double[] p = percentilesMs.get(m);
        return p.length > 2 ? p[2] : Double.NaN;
    }

    public double p99Ms(Metric m) {
        return percentilesMs.get(m)[1];
    }

    /** The names of the numeric columns of {@link #columns()}, in order (what a figure or a comparison may name as a metric). */
    public static java.util.List<String> numericColumns() {
        Map<Metric, double[]> p = new java.util.EnumMap<>(Metric.class);
        for (Metric m : Metric.values()) p.put(m, new double[3]);
        CellSummary zero = new CellSummary(0, "", "", "", "", "", "", 0, 0, 0, p, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "", "", 0, 0, "", 0);
        return zero.columns().entrySet().stream().filter(e -> e.getValue() instanceof Number).map(Map.Entry::getKey).toList();
    }

    /** The same summary with another wall time (the CLI counts from config load). */
    public CellSummary withWallSeconds(double w) {
        return new CellSummary(seed, mode, cacheState, tiers, policy, transport, pd, requests, completed, failed, percentilesMs,
                goodputRps, sloAttainment, localHitRatio, remoteHitRatio, fetchedBytes, fallbacks, wrongHitsUsed, simulatedSeconds,
                w, throughputRps, outputTokensPerSecond, remoteAvailableRatio, writtenBackBytes, rejectedBlocks, model, hardware,
                instances, tp, emulated, prefillGpuMsMean);
    }

    /**
     * Column name → value, in {@code summary.csv} order: {@code seed, mode, cache_state, tiers, policy, transport,
     * pd, requests, completed, failed, ttft_p50_ms, ttft_p99_ms, tpot_p50_ms, tpot_p99_ms, itl_p50_ms, itl_p99_ms,
     * e2el_p99_ms, goodput_rps, slo_attainment, local_hit_ratio, remote_hit_ratio, fetched_bytes, fallbacks,
     * wrong_hits_used}, then the extras ({@code ttft_mean_ms}, {@code prefill_gpu_ms_mean}, the other percentiles, simulated_seconds, wall_seconds, …).
     */
    public Map<String, Object> columns() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("seed", seed);
        c.put("mode", mode);
        c.put("cache_state", cacheState);
        c.put("tiers", tiers);
        c.put("policy", policy);
        c.put("transport", transport);
        c.put("pd", pd);
        c.put("requests", requests);
        c.put("completed", completed);
        c.put("failed", failed);
        c.put("ttft_p50_ms", p50Ms(Metric.TTFT));
        c.put("ttft_p99_ms", p99Ms(Metric.TTFT));
        c.put("tpot_p50_ms", p50Ms(Metric.TPOT));
        c.put("tpot_p99_ms", p99Ms(Metric.TPOT));
        c.put("itl_p50_ms", p50Ms(Metric.ITL));
        c.put("itl_p99_ms", p99Ms(Metric.ITL));
        c.put("e2el_p99_ms", p99Ms(Metric.E2EL));
        c.put("goodput_rps", goodputRps);
        c.put("slo_attainment", sloAttainment);
        c.put("local_hit_ratio", localHitRatio);
        c.put("remote_hit_ratio", remoteHitRatio);
        c.put("fetched_bytes", fetchedBytes);
        c.put("fallbacks", fallbacks);
        c.put("wrong_hits_used", wrongHitsUsed);
        c.put("ttft_mean_ms", meanMs(Metric.TTFT));
        c.put("prefill_gpu_ms_mean", prefillGpuMsMean);
        c.put("e2el_p50_ms", p50Ms(Metric.E2EL));
        c.put("tbt_p50_ms", p50Ms(Metric.TBT));
        c.put("tbt_p99_ms", p99Ms(Metric.TBT));
        c.put("queue_p50_ms", p50Ms(Metric.QUEUE));
        c.put("queue_p99_ms", p99Ms(Metric.QUEUE));
        c.put("fetch_p50_ms", p50Ms(Metric.FETCH));
        c.put("fetch_p99_ms", p99Ms(Metric.FETCH));
        c.put("simulated_seconds", simulatedSeconds);
        c.put("wall_seconds", wallSeconds);
        c.put("throughput_rps", throughputRps);
        c.put("output_tokens_per_s", outputTokensPerSecond);
        c.put("remote_available_ratio", remoteAvailableRatio);
        c.put("written_back_bytes", writtenBackBytes);
        c.put("rejected_blocks", rejectedBlocks);
        c.put("model", model);
        c.put("hardware", hardware);
        c.put("instances", instances);
        c.put("tp", tp);
        c.put("emulated", emulated);
        return c;
    }
}
