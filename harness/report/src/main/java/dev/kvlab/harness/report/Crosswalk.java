package dev.kvlab.harness.report;

import dev.kvlab.harness.api.Metric;
import java.util.List;

/**
 * kvlab's metric names next to what vLLM, AIPerf, MLPerf and the Mooncake paper call the same thing (DESIGN.md's
 * metric table), by {@link Metric}. The traps: AIPerf's "ITL" is a per-request mean (kvlab {@code tpot}), and its "ICL" is the
 * pooled gap (kvlab {@code itl}).
 */
final class Crosswalk {

    /** One metric. */
    record Row(String kvlab, String definition, String vllm, String aiperf, String mlperf, String other) {}

    static final List<Row> ROWS = List.of(
            new Row(
                    Metric.TTFT.id(),
                    "intended arrival → first output token",
                    "TTFT",
                    "TTFT",
                    "TTFT",
                    "TTFT everywhere"),
            new Row(
                    Metric.TPOT.id(),
                    "(e2el − ttft) / (output_tokens − 1), per request",
                    "TPOT",
                    "\"ITL\" (inter-token latency, per request)",
                    "TPOT",
                    ""),
            new Row(
                    Metric.ITL.id(),
                    "every gap between consecutive output tokens, pooled",
                    "ITL",
                    "\"ICL\" (inter-chunk latency)",
                    "–",
                    ""),
            new Row(
                    Metric.TBT.id(),
                    "mean of the longest 10% of a request's token gaps",
                    "–",
                    "–",
                    "–",
                    "Mooncake paper: TBT"),
            new Row(Metric.E2EL.id(), "intended arrival → last token", "E2EL", "request latency", "–", "E2E latency"),
            new Row(Metric.QUEUE.id(), "arrival → admitted by the scheduler", "(queue time)", "–", "–", ""),
            new Row(Metric.FETCH.id(), "time spent fetching KV for a request", "–", "–", "–", "KV transfer time"),
            new Row(
                    "goodput",
                    "requests per second that meet every SLO given (ttft, tpot, tbt, e2el)",
                    "goodput",
                    "goodput",
                    "–",
                    "DistServe goodput"));

    private Crosswalk() {}
}
