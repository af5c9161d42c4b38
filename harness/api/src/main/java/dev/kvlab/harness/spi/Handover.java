package dev.kvlab.harness.spi;

/**
 * PD disaggregation on a real engine: how one request's prompt KV went from its prefill instance to its decode
 * instance, as the server observed it (times on the loop's clock; the measurement turns them into the request's
 * breakdown, from its intended arrival).
 *
 * @param prefilledAt       the prefill instance computed the prompt's last token
 * @param arrivedAt         the KV was in the decode instance's buffer (direct) or in the store (store): the handover's transfer ended
 * @param decodeAdmittedAt  the decode instance took the request on a sequence (it waited for one from {@code arrivedAt})
 * @param restoredAt        the decode instance restored the KV (or, {@code ok} false, decided to recompute it): the client's first token
 * @param bytes             bytes handed over (block objects: header and llama.cpp's rows)
 * @param tokens            prompt tokens handed over
 * @param transferNanos     of the handover's transfer: the WRITE (direct) or the put and the get (store), as timed where they ran;
 *                          -1 when it was not timed (it failed before it ended, or never ran): unknown, not 0
 * @param restoreNanos      {@code llama_state_seq_set_data} on the decode instance's engine thread (the part its
 *                          decoding sequences wait for; verification, the audit and assembly run before it on an I/O
 *                          thread, within {@code decodeAdmittedAt..restoredAt})
 * @param ok                false: the handover failed (a transfer error, a block that failed verification, a refused restore)
 *                          and the decode instance recomputed the prompt
 */
public record Handover(
        long prefilledAt,
        long arrivedAt,
        long decodeAdmittedAt,
        long restoredAt,
        long bytes,
        int tokens,
        long transferNanos,
        long restoreNanos,
        boolean ok) {}
