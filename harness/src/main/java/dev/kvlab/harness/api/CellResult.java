package dev.kvlab.harness.api;

import dev.kvlab.harness.api.config.RunConfig;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Everything one cell run produced: its summary, the whole-run histogram and the interval histograms of every
 * {@link Metric} (for {@code .hlog} files; timestamps in the run's own clock), the {@link RequestLog} of one
 * {@link RequestRecord} per measured request (the {@code requests.csv} file, streamed while the run went), and
 * mode-specific extra figures (e.g. the live harness's own per-request overhead).
 *
 * @param config     the resolved config that ran
 * @param summary    the summary row
 * @param totals     whole-run histogram per metric (µs)
 * @param intervals  interval histograms per metric, in time order
 * @param requestLog per-request records, in completion order (a closed file)
 * @param extras     further figures, name → value (ordered)
 * @param describe   what ran: workload, store, transport, clock
 */
public record CellResult(RunConfig config, CellSummary summary, Map<Metric, Histogram> totals,
                         Map<Metric, List<IntervalHistogram>> intervals, RequestLog requestLog,
                         Map<String, Object> extras, Map<String, String> describe) {

    /**
     * Numeric extras that are also columns of {@code summary.csv}/{@code summary.json} rows (where a cell has them): the
     * store's own figures (both clocks), the link a live cell decided on, its own overhead figures, and its sim
     * twin's predictions.
     */
    public static final java.util.Set<String> ROW_EXTRAS = java.util.Set.of("store_usage", "store_objects", "store_evicted_objects",
            "link_measured_bytes_per_s", "link_measured_latency_us",
            dev.kvlab.harness.internal.live.HarnessCpu.FIGURE, "harness_overhead_us_per_request", "event_lag_p50_us", "event_lag_p99_us", "gc_pause_ms",
            dev.kvlab.harness.internal.SimTwin.TTFT_P50, dev.kvlab.harness.internal.SimTwin.TTFT_P99,
            dev.kvlab.harness.internal.SimTwin.FETCH_P50, dev.kvlab.harness.internal.SimTwin.GOODPUT,
            dev.kvlab.harness.internal.SimTwin.SHARE_AT_P50, dev.kvlab.harness.internal.openai.EngineColumns.PROMPT_TOKENS,
            dev.kvlab.harness.internal.openai.EngineColumns.CACHED_PROMPT_TOKENS, dev.kvlab.harness.internal.openai.EngineColumns.LOCAL_HIT_RATIO,
            dev.kvlab.harness.internal.openai.EngineColumns.EXTERNAL_HIT_RATIO, dev.kvlab.harness.internal.openai.EngineColumns.TTFT_GAP_P50,
            dev.kvlab.harness.internal.openai.EngineColumns.LOOPBACK_TTFT_P50,
            dev.kvlab.harness.internal.realkv.RealKvColumns.FETCHED_TOKENS, dev.kvlab.harness.internal.realkv.RealKvColumns.KV_BYTES_PER_TOKEN,
            dev.kvlab.harness.internal.realkv.RealKvColumns.PREFILL_TOKENS_PER_S,
            dev.kvlab.harness.internal.realkv.RealKvColumns.CALIBRATED_PREFILL_TOKENS_PER_S,
            dev.kvlab.harness.internal.realkv.RealKvColumns.CALIBRATED_DECODE_MS,
            dev.kvlab.harness.internal.realkv.RealKvColumns.BREAKEVEN_PREDICTED_TOKENS,
            dev.kvlab.harness.internal.realkv.RealKvColumns.SHARED_PREFIX_TOKENS,
            dev.kvlab.harness.internal.realkv.RealKvColumns.PREDICTED_RECOMPUTE_MS,
            dev.kvlab.harness.internal.realkv.RealKvColumns.PREDICTED_FETCH_MS);

    public CellResult {
        totals = Collections.unmodifiableMap(totals);
        intervals = Collections.unmodifiableMap(intervals);
        extras = Collections.unmodifiableMap(new LinkedHashMap<>(extras));
        describe = Collections.unmodifiableMap(new LinkedHashMap<>(describe));
    }

    /** Every request record, read back from {@link #requestLog()} into memory: for small runs and tests. */
    public List<RequestRecord> requests() {
        return requestLog.readAll();
    }

    /** The summary columns followed by the extras: what {@code kvlab run --json} prints. */
    public Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>(summary.columns());
        m.putAll(extras);
        return m;
    }

    public CellResult withSummary(CellSummary s) {
        return new CellResult(config, s, totals, intervals, requestLog, extras, describe);
    }
}
