package dev.kvlab.harness.api;

import dev.kvlab.harness.api.config.RunConfig;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * Everything one cell run produced: its summary, the whole-run histogram and the interval histograms of every
 * {@link Metric} (for {@code .hlog} files; timestamps in the run's own clock), the {@link RequestLog} of one
 * {@link RequestRecord} per measured request (the {@code requests.csv} file, streamed while the run went), and
 * mode-specific extra figures (e.g. the live harness's own per-request overhead): those of {@link Columns#rowExtras()} join the
 * cell's {@code summary.csv} row, the others only its {@code cell.json}.
 *
 * @param config     the resolved config that ran
 * @param summary    the summary row
 * @param totals     whole-run histogram per metric (µs)
 * @param intervals  interval histograms per metric, in time order
 * @param requestLog per-request records, in completion order (a closed file)
 * @param extras     further figures, registered column name → value (ordered)
 * @param describe   what ran: workload, store, transport, clock
 * @param handovers  prefill/decode disaggregation: each completed request's way to its first token (the
 *                   {@code handovers.csv} file), in completion order; empty when nothing was handed over
 */
public record CellResult(
        RunConfig config,
        CellSummary summary,
        Map<Metric, Histogram> totals,
        Map<Metric, List<IntervalHistogram>> intervals,
        RequestLog requestLog,
        SummaryRow extras,
        Map<String, String> describe,
        List<HandoverRecord> handovers) {

    public CellResult {
        handovers = List.copyOf(handovers);
        totals = Collections.unmodifiableMap(totals);
        intervals = Collections.unmodifiableMap(intervals);
        extras = Objects.requireNonNull(extras, "extras");
        describe = Collections.unmodifiableMap(new LinkedHashMap<>(describe));
    }

    /** The result with {@code figures} as its extras: how a clock assembles one (every figure a registered column). */
    public CellResult(
            RunConfig config,
            CellSummary summary,
            Map<Metric, Histogram> totals,
            Map<Metric, List<IntervalHistogram>> intervals,
            RequestLog requestLog,
            Figures figures,
            Map<String, String> describe,
            List<HandoverRecord> handovers) {
        this(config, summary, totals, intervals, requestLog, figures.asRow(), describe, handovers);
    }

    /** Every request record, read back from {@link #requestLog()} into memory: for small runs and tests. */
    public List<RequestRecord> requests() {
        return requestLog.readAll();
    }

    /** The summary columns followed by the extras: what {@code kvlab run --json} prints. */
    public SummaryRow json() {
        return summary.columns().toBuilder().putAll(extras).build();
    }

    public CellResult withSummary(CellSummary s) {
        return new CellResult(config, s, totals, intervals, requestLog, extras, describe, handovers);
    }
}
