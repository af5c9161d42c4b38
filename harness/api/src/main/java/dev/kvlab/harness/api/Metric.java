package dev.kvlab.harness.api;

import java.util.Locale;

/**
 * The latency metrics kvlab records, each an HdrHistogram of microseconds (3 significant digits), all measured
 * from the request's intended arrival time (DESIGN.md's metric table).
 */
public enum Metric {
    /** Intended arrival → first output token. */
    TTFT,
    /** (e2el − ttft) / (output_tokens − 1), per request (requests with one output token have none). */
    TPOT,
    /** Every gap between consecutive output tokens, pooled over requests. */
    ITL,
    /** Mean of the longest 10% of a request's token gaps (at least one gap). */
    TBT,
    /** Intended arrival → last token. */
    E2EL,
    /** Intended arrival → admitted by the scheduler. */
    QUEUE,
    /** Time spent fetching KV for a request (requests that fetched). */
    FETCH;

    /** Lower-case name as used in files and columns ({@code ttft}, …). */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
