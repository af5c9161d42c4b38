package dev.kvlab.harness.internal.realkv;

import java.util.List;

/** The result columns only a real engine's KV has, named once: summary rows, {@code --json} and the report read them from here. */
public final class RealKvColumns {

    /** Prompt tokens of the measured requests whose KV came from the store (fetched, verified and restored). */
    public static final String FETCHED_TOKENS = "fetched_tokens";
    /** Bytes of one block's KV payload per token, as llama.cpp's state holds it (every layer's K and V rows). */
    public static final String KV_BYTES_PER_TOKEN = "engine_kv_bytes_per_token";

    /** The engine's prefill rate over the cell's measured requests (tokens prefilled / time prefilling, after restores included). */
    public static final String PREFILL_TOKENS_PER_S = "engine_prefill_tokens_per_s";
    /** The engine's prefill rate measured by the cell's calibration (the twin's and the prediction's roofline). */
    public static final String CALIBRATED_PREFILL_TOKENS_PER_S = "engine_calibrated_prefill_tokens_per_s";
    /** The engine's decode step measured by the cell's calibration (ms). */
    public static final String CALIBRATED_DECODE_MS = "engine_calibrated_decode_ms_per_token";
    /** The prefix length from which fetching beats recomputing, as {@code kvlab breakeven} predicts on the calibration and the measured link. */
    public static final String BREAKEVEN_PREDICTED_TOKENS = "breakeven_predicted_tokens";
    /** The prompt prefix the workload's requests share (whole blocks): the length the next two are predicted at. */
    public static final String SHARED_PREFIX_TOKENS = "shared_prefix_tokens";
    /** Predicted time to recompute the shared prefix (ms). */
    public static final String PREDICTED_RECOMPUTE_MS = "predicted_recompute_ms";
    /** Predicted time to fetch the shared prefix's KV (ms). */
    public static final String PREDICTED_FETCH_MS = "predicted_fetch_ms";

    /** The numeric ones, as summary columns. */
    public static final List<String> ROW = List.of(FETCHED_TOKENS, KV_BYTES_PER_TOKEN, PREFILL_TOKENS_PER_S, CALIBRATED_PREFILL_TOKENS_PER_S, CALIBRATED_DECODE_MS,
            BREAKEVEN_PREDICTED_TOKENS, SHARED_PREFIX_TOKENS, PREDICTED_RECOMPUTE_MS, PREDICTED_FETCH_MS);

    private RealKvColumns() {}
}
