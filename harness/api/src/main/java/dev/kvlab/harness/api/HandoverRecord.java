package dev.kvlab.harness.api;

import java.util.List;

/**
 * One disaggregated request's way to its first token, a row of {@code handovers.csv}: where its time to first token
 * went, part by part, as the client's clock saw it (ms from the intended arrival for {@code ttftMs}; each part from the
 * end of the one before). For a handover that succeeded the parts add up to the TTFT: prefill queue + prefill +
 * handover + decode queue + restore. For one that failed ({@code ok} false) the decode instance recomputed the prompt:
 * its parts end where the recompute was decided and the TTFT came after the recompute. A part that was not observed is
 * NaN.
 *
 * @param id              position in the workload (as in {@code requests.csv})
 * @param arrivalMs       intended arrival, ms since the measured phase started
 * @param prefillQueueMs  intended arrival → admitted on a prefill instance
 * @param prefillMs       admitted → the prompt's last token computed
 * @param handoverMs      prompt computed → its KV in the decode instance's buffer (direct) or in the store (store)
 * @param decodeQueueMs   → a decode instance took the request on a sequence
 * @param restoreMs       → the KV verified and restored (or the recompute decided): the first token goes out
 * @param ttftMs          time to first token
 * @param firstDecodeMs   the first decode step (first token → second), NaN with one output token
 * @param bytes           bytes handed over (block objects: header and the engine's rows)
 * @param tokens          prompt tokens handed over
 * @param transferMs      the transfer alone, as timed where it ran (the WRITE; or the put and the get); NaN when it
 *                        failed before it ended
 * @param restoreWorkMs   verification, assembly and the engine's restore call on the decode instance
 * @param ok              false: the handover failed and the prompt was recomputed on the decode instance
 */
public record HandoverRecord(
        long id,
        double arrivalMs,
        double prefillQueueMs,
        double prefillMs,
        double handoverMs,
        double decodeQueueMs,
        double restoreMs,
        double ttftMs,
        double firstDecodeMs,
        long bytes,
        int tokens,
        double transferMs,
        double restoreWorkMs,
        boolean ok) {

    /** Column names of {@code handovers.csv}, in record order. */
    public static final String CSV_HEADER =
            "id,arrival_ms,prefill_queue_ms,prefill_ms,handover_ms,decode_queue_ms,restore_ms,ttft_ms,first_decode_ms,"
                    + "bytes,tokens,transfer_ms,restore_work_ms,ok";

    /** The record as one CSV row (no line end). */
    public String csvRow() {
        return id + "," + arrivalMs + "," + prefillQueueMs + "," + prefillMs + "," + handoverMs + "," + decodeQueueMs
                + "," + restoreMs + "," + ttftMs + "," + firstDecodeMs + "," + bytes + "," + tokens + "," + transferMs
                + "," + restoreWorkMs + "," + ok;
    }

    /** {@code records} as the whole of {@code handovers.csv}: the header, then a row each. */
    public static String csv(List<HandoverRecord> records) {
        StringBuilder sb = new StringBuilder(CSV_HEADER).append('\n');
        for (HandoverRecord r : records) sb.append(r.csvRow()).append('\n');
        return sb.toString();
    }
}
