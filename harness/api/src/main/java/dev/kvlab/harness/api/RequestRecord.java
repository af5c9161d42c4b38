package dev.kvlab.harness.api;

/**
 * One measured request, a row of {@code requests.csv}. Latencies in milliseconds from the intended arrival;
 * NaN where a metric does not apply (e.g. tpot with one output token, or a failed request). A count the target does
 * not know (a real engine that reports no cached tokens, or none of its fetches) is {@link #UNKNOWN}: NaN in the file.
 *
 * @param id              position in the workload
 * @param session         session / conversation id
 * @param arrivalMs       intended arrival, ms since the measured phase started
 * @param instance        instance that prefilled it
 * @param inputTokens     prompt tokens
 * @param outputTokens    output tokens
 * @param localHitTokens  prompt tokens served by the local tier (HBM + DRAM)
 * @param remoteHitTokens prompt tokens fetched from the store (verified)
 * @param fetchedBytes    bytes fetched
 * @param fallbackBlocks  blocks planned for fetch but recomputed after a failed fetch
 * @param queueMs         arrival → admission
 * @param fetchMs         time fetching
 * @param ttftMs          time to first token
 * @param tpotMs          time per output token
 * @param tbtMs           mean of the longest 10% gaps
 * @param e2elMs          end-to-end latency
 * @param good            met every SLO given
 * @param status          {@code ok} or {@code failed: reason}
 */
public record RequestRecord(
        long id,
        String session,
        double arrivalMs,
        int instance,
        int inputTokens,
        int outputTokens,
        long localHitTokens,
        long remoteHitTokens,
        long fetchedBytes,
        long fallbackBlocks,
        double queueMs,
        double fetchMs,
        double ttftMs,
        double tpotMs,
        double tbtMs,
        double e2elMs,
        boolean good,
        String status) {

    /** A count the target does not know: NaN in {@code requests.csv}, never 0. */
    public static final long UNKNOWN = -1;

    /** Column names of {@code requests.csv}, in record order. */
    public static final String CSV_HEADER =
            "id,session,arrival_ms,instance,input_tokens,output_tokens,local_hit_tokens,"
                    + "remote_hit_tokens,fetched_bytes,fallback_blocks,queue_ms,fetch_ms,ttft_ms,tpot_ms,tbt_ms,e2el_ms,good,status";
}
