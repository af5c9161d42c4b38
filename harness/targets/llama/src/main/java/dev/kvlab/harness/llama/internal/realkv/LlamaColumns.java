package dev.kvlab.harness.llama.internal.realkv;

import static dev.kvlab.harness.api.Column.detail;
import static dev.kvlab.harness.api.Column.extra;
import static dev.kvlab.harness.api.Column.figure;

import dev.kvlab.harness.api.Column;
import dev.kvlab.harness.api.Column.Merge;
import dev.kvlab.harness.api.Column.Source;
import dev.kvlab.harness.api.Column.Unit;
import dev.kvlab.harness.api.ColumnSet;
import dev.kvlab.harness.api.config.TargetKind;
import java.util.List;

/**
 * The result columns only the llama.cpp target produces, declared by it ({@code TargetProvider.columns()}) and registered with
 * every other column ({@link dev.kvlab.harness.api.Columns#all()}): the summary writer, the report, the Influx push,
 * {@code compare}, {@code merge} and docs/columns.md read them from the one registry. Columns other modules read
 * (the report's, the bundle's, the metrics push's) stay in {@link dev.kvlab.harness.api.Columns}.
 */
public final class LlamaColumns {

    private static final String LLAMA = TargetKind.LLAMA;

    public static final Column<Number> ENGINE_CALIBRATED_DECODE_MS = extra(
            "engine_calibrated_decode_ms_per_token",
            Unit.MS,
            "the engine's decode step after a short context, measured by the cell's calibration",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> REJECTED_HANDOVER_CHECKSUM = figure(
            "rejected_handover_checksum",
            Number.class,
            Unit.COUNT,
            "handovers refused because an object's checksum or header did not match (the prompt recomputed on the decode instance)",
            Source.live(LLAMA));
    public static final Column<Number> REJECTED_HANDOVER_TRANSFER = figure(
            "rejected_handover_transfer",
            Number.class,
            Unit.COUNT,
            "handovers refused because the transfer or the store get failed (recomputed)",
            Source.live(LLAMA));
    public static final Column<Number> REJECTED_HANDOVER_OTHER = figure(
            "rejected_handover_other",
            Number.class,
            Unit.COUNT,
            "handovers refused for another reason, such as a refused restore (recomputed)",
            Source.live(LLAMA));
    public static final Column<Number> HANDOVER_TRANSFER_MS_MEAN = extra(
            "handover_transfer_ms_mean",
            Unit.MS,
            "PD: mean transfer time of a handover: the WRITE into the decode side's buffer (direct) or the put and the get (store),"
                    + " over the transfers that ended (NaN when colocated: no handover)",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> HANDOVER_RESTORE_MS_MEAN = extra(
            "handover_restore_ms_mean",
            Unit.MS,
            "PD: mean time the decode instance's engine thread spent restoring a handover (llama_state_seq_set_data;"
                    + " verification, the audit and assembly run before it on an I/O thread; NaN when colocated)",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<String> ENGINE_REUSE = new Column<>(
            "engine_reuse",
            String.class,
            Unit.TEXT,
            "what the cell took over from an earlier probe of the same cell (model, contexts, store and their primed state, warm-up skipped), "
                    + "or why it started fresh; a capacity probe's fresh engine also says when its twin took the calibration its "
                    + "search's prediction was made with (not timed again)",
            Source.live(LLAMA),
            Merge.SAME,
            null);
    public static final Column<Number> ENGINE_SETUP_MS = detail(
            "engine_setup_ms",
            Unit.MS,
            "wall time from the cell's start to its measured phase: library, model, contexts, calibration, store and the hot warm-up "
                    + "(what a probe costs beyond its measured requests)",
            Source.live(LLAMA),
            Merge.SUM);
    public static final Column<String> ENGINE = figure(
            "engine",
            String.class,
            Unit.TEXT,
            "the engine that served the cell (llama.cpp build and backend)",
            Source.live(LLAMA));
    public static final Column<String> TARGET_MODEL_SHA256 =
            figure("target_model_sha256", String.class, Unit.TEXT, "SHA-256 of the model file", Source.live(LLAMA));
    public static final Column<Number> TARGET_THREADS =
            figure("target_threads", Number.class, Unit.COUNT, "threads per engine instance", Source.live(LLAMA));
    public static final Column<String> ENGINE_KV_LAYOUT = figure(
            "engine_kv_layout",
            String.class,
            Unit.TEXT,
            "the layout of llama.cpp's KV state (layers, heads, dtype)",
            Source.live(LLAMA));
    public static final Column<String> ENGINE_SYSTEM_INFO = figure(
            "engine_system_info",
            String.class,
            Unit.TEXT,
            "llama.cpp's system info (CPU features the build uses)",
            Source.live(LLAMA));
    public static final Column<String> ENGINE_LIBRARY = figure(
            "engine_library", String.class, Unit.TEXT, "the llama.cpp library the cell loaded", Source.live(LLAMA));
    public static final Column<String> KV_NAMESPACE = figure(
            "kv_namespace",
            String.class,
            Unit.TEXT,
            "the prefix of the cell's block keys in the store",
            Source.live(LLAMA));
    public static final Column<Number> BLOCK_OBJECT_BYTES = figure(
            "block_object_bytes",
            Number.class,
            Unit.BYTES,
            "bytes of one block's object in the store (header and KV payload)",
            Source.live(LLAMA));
    public static final Column<Number> FETCHED_BYTES_PER_FETCHED_TOKEN = figure(
            "fetched_bytes_per_fetched_token",
            Number.class,
            Unit.BYTES,
            "bytes fetched from the store per prompt token whose KV came from it",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_PREFILL_TOKENS = figure(
            "engine_prefill_tokens",
            Number.class,
            Unit.TOKENS,
            "prompt tokens the engine prefilled over the measured requests (after restores)",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_DECODE_MS_PER_TOKEN = figure(
            "engine_decode_ms_per_token",
            Number.class,
            Unit.MS,
            "the engine's decode time per output token over the measured requests",
            Source.live(LLAMA));
    public static final Column<Number> RESTORES = figure(
            "restores",
            Number.class,
            Unit.COUNT,
            "KV restores into the engine (fetched blocks loaded into a sequence)",
            Source.live(LLAMA));
    public static final Column<Number> RESTORE_MS_MEAN =
            figure("restore_ms_mean", Number.class, Unit.MS, "mean time of one restore", Source.live(LLAMA));
    public static final Column<Number> TRANSFER_MS_TOTAL = figure(
            "transfer_ms_total",
            Number.class,
            Unit.MS,
            "time fetching blocks from the store, summed",
            Source.live(LLAMA));
    public static final Column<Number> VERIFY_MS_TOTAL = figure(
            "verify_ms_total",
            Number.class,
            Unit.MS,
            "time verifying fetched blocks (header and checksum), summed",
            Source.live(LLAMA));
    public static final Column<Number> SPLIT_MS_TOTAL = figure(
            "split_ms_total",
            Number.class,
            Unit.MS,
            "time splitting the engine's KV state into block payloads, summed",
            Source.live(LLAMA));
    public static final Column<Number> SPLIT_GB_PER_S =
            figure("split_gb_per_s", Number.class, Unit.NONE, "bytes split per nanosecond (GB/s)", Source.live(LLAMA));
    public static final Column<Number> ASSEMBLE_MS_TOTAL = figure(
            "assemble_ms_total",
            Number.class,
            Unit.MS,
            "time assembling fetched block payloads into the engine's KV state, summed",
            Source.live(LLAMA));
    public static final Column<Number> ASSEMBLE_GB_PER_S = figure(
            "assemble_gb_per_s", Number.class, Unit.NONE, "bytes assembled per nanosecond (GB/s)", Source.live(LLAMA));
    public static final Column<Number> POLICY_RECOMPUTED_REQUESTS = figure(
            "policy_recomputed_requests",
            Number.class,
            Unit.COUNT,
            "requests whose stored prefix the policy chose to recompute rather than fetch",
            Source.live(LLAMA));
    public static final Column<String> VERIFY_RESTORE = figure(
            "verify_restore",
            String.class,
            Unit.TEXT,
            "target.verify_every: how restores were checked against a recompute (or off)",
            Source.live(LLAMA));
    public static final Column<Number> VERIFY_RESTORE_SKIPPED = figure(
            "verify_restore_skipped", Number.class, Unit.COUNT, "sampled restore checks skipped", Source.live(LLAMA));
    public static final Column<Number> VERIFY_RESTORE_CHECKS = figure(
            "verify_restore_checks",
            Number.class,
            Unit.COUNT,
            "restore checks run (next-token logits against a recompute)",
            Source.live(LLAMA));
    public static final Column<Number> VERIFY_RESTORE_MAX_LOGIT_DIFF = figure(
            "verify_restore_max_logit_diff",
            Number.class,
            Unit.NONE,
            "largest next-token logit difference a restore check found (NaN: none run)",
            Source.live(LLAMA));
    public static final Column<Number> VERIFY_RESTORE_MS_TOTAL = figure(
            "verify_restore_ms_total",
            Number.class,
            Unit.MS,
            "time the restore checks took, summed (off the measured path)",
            Source.live(LLAMA));
    public static final Column<Number> WRITE_BACK_FAILED_IN_PROGRESS = figure(
            "write_back_failed_in_progress",
            Number.class,
            Unit.BLOCKS,
            "write-backs refused because another writer was putting the same block",
            Source.live(LLAMA));
    public static final Column<Number> WRITE_BACK_FAILED_NO_SPACE = figure(
            "write_back_failed_no_space",
            Number.class,
            Unit.BLOCKS,
            "write-backs the store refused for lack of space",
            Source.live(LLAMA));
    public static final Column<Number> WRITE_BACK_FAILED_FAILED = figure(
            "write_back_failed_failed", Number.class, Unit.BLOCKS, "write-backs whose put failed", Source.live(LLAMA));
    public static final Column<Number> WRITE_BACK_FAILED_ERROR_AFTER_COMPLETION = figure(
            "write_back_failed_error_after_completion",
            Number.class,
            Unit.COUNT,
            "write-backs an error stopped after their request completed",
            Source.live(LLAMA));
    public static final Column<String> WRITE_BACK_ERROR = figure(
            "write_back_error",
            String.class,
            Unit.TEXT,
            "the first error that stopped a write-back after its request completed",
            Source.live(LLAMA));
    public static final Column<Number> TARGET_SEQUENCES = figure(
            "target_sequences", Number.class, Unit.COUNT, "sequences one instance serves at once", Source.live(LLAMA));
    public static final Column<Number> TARGET_BATCH_TOKENS = figure(
            "target_batch_tokens", Number.class, Unit.TOKENS, "tokens of one engine step at most", Source.live(LLAMA));
    public static final Column<Number> LOCAL_CAPACITY_BLOCKS = figure(
            "local_capacity_blocks",
            Number.class,
            Unit.BLOCKS,
            "blocks the instance's local tier keeps",
            Source.live(LLAMA));
    public static final Column<Number> LOCAL_CACHE_SEQUENCE_IDS = figure(
            "local_cache_sequence_ids",
            Number.class,
            Unit.COUNT,
            "llama.cpp sequence ids the local tier keeps blocks in",
            Source.live(LLAMA));
    public static final Column<Number> CONTEXT_CELLS =
            figure("context_cells", Number.class, Unit.COUNT, "KV cells of one instance's context", Source.live(LLAMA));
    public static final Column<String> ENGINE_KV_STREAMS = figure(
            "engine_kv_streams",
            String.class,
            Unit.TEXT,
            "how the context's KV cells are split among sequences",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_STEPS =
            figure("engine_steps", Number.class, Unit.COUNT, "engine steps (llama_decode calls)", Source.live(LLAMA));
    public static final Column<Number> ENGINE_STEP_MS_MEAN = figure(
            "engine_step_ms_mean", Number.class, Unit.MS, "mean wall time of one engine step", Source.live(LLAMA));
    public static final Column<Number> ENGINE_STEP_TOKENS_MEAN = figure(
            "engine_step_tokens_mean", Number.class, Unit.TOKENS, "mean tokens of one engine step", Source.live(LLAMA));
    public static final Column<Number> ENGINE_STEP_CPU_S = figure(
            "engine_step_cpu_s",
            Number.class,
            Unit.SECONDS,
            "CPU time of the engine threads in steps",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_CPU_MS_PER_STEP_TOKEN = figure(
            "engine_cpu_ms_per_step_token",
            Number.class,
            Unit.MS,
            "engine threads' CPU time per token stepped",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_STEP_SEQUENCES_MEAN = figure(
            "engine_step_sequences_mean",
            Number.class,
            Unit.COUNT,
            "mean sequences of one engine step",
            Source.live(LLAMA));
    public static final Column<Number> LOCAL_LENT_BLOCKS = figure(
            "local_lent_blocks",
            Number.class,
            Unit.BLOCKS,
            "blocks the local tier lent to requests",
            Source.live(LLAMA));
    public static final Column<Number> LOCAL_KEPT_BLOCKS = figure(
            "local_kept_blocks", Number.class, Unit.BLOCKS, "blocks the local tier newly kept", Source.live(LLAMA));
    public static final Column<Number> LOCAL_EVICTED_BLOCKS = figure(
            "local_evicted_blocks", Number.class, Unit.BLOCKS, "blocks the local tier evicted", Source.live(LLAMA));
    public static final Column<Number> LOCAL_UNPLACED_BLOCKS = figure(
            "local_unplaced_blocks",
            Number.class,
            Unit.BLOCKS,
            "blocks the local tier did not keep for want of a cache sequence id",
            Source.live(LLAMA));
    public static final Column<String> TWIN = figure(
            "twin",
            String.class,
            Unit.TEXT,
            "why the cell has no sim twin (target.calibrate_tokens: 0)",
            Source.live(LLAMA));
    public static final Column<String> ENGINE_CALIBRATION = figure(
            "engine_calibration",
            String.class,
            Unit.TEXT,
            "how the engine was calibrated, in words",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_CALIBRATED_FLOPS = figure(
            "engine_calibrated_flops",
            Number.class,
            Unit.NONE,
            "the calibration's compute rate (FLOP/s)",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_CALIBRATED_BYTES_PER_S = figure(
            "engine_calibrated_bytes_per_s",
            Number.class,
            Unit.BYTES_PER_S,
            "the calibration's memory bandwidth",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_CALIBRATED_ATTENTION_EFFICIENCY = figure(
            "engine_calibrated_attention_efficiency",
            Number.class,
            Unit.RATIO,
            "the calibration's attention efficiency",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_CALIBRATED_SMALL_PASS_ATTENTION_EFFICIENCY = figure(
            "engine_calibrated_small_pass_attention_efficiency",
            Number.class,
            Unit.RATIO,
            "the calibration's attention efficiency of small passes",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_CALIBRATED_SMALL_PASS_TOKENS = figure(
            "engine_calibrated_small_pass_tokens",
            Number.class,
            Unit.TOKENS,
            "up to how many tokens a pass is small",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_CALIBRATED_PREFILL_BEHIND_CONTEXT_MS = figure(
            "engine_calibrated_prefill_behind_context_ms",
            Number.class,
            Unit.MS,
            "the calibration's prefill time of a suffix behind a cached context",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_CALIBRATED_CONTEXT_TOKENS = figure(
            "engine_calibrated_context_tokens",
            Number.class,
            Unit.TOKENS,
            "the cached context the calibration prefilled behind",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_CALIBRATED_KV_LOAD_LATENCY_US = figure(
            "engine_calibrated_kv_load_latency_us",
            Number.class,
            Unit.US,
            "the calibration's fixed cost of loading KV into the engine",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_CALIBRATED_KV_LOAD_BYTES_PER_S = figure(
            "engine_calibrated_kv_load_bytes_per_s",
            Number.class,
            Unit.BYTES_PER_S,
            "the calibration's rate of loading KV into the engine",
            Source.live(LLAMA));
    public static final Column<Number> ENGINE_CALIBRATION_WORST_ERROR = figure(
            "engine_calibration_worst_error",
            Number.class,
            Unit.RATIO,
            "the calibration's largest relative error against its own timings",
            Source.live(LLAMA));
    public static final Column<String> ENGINE_CALIBRATION_CLIPS = figure(
            "engine_calibration_clips",
            String.class,
            Unit.TEXT,
            "what the calibration clipped, in words",
            Source.live(LLAMA));
    public static final Column<String> TWIN_MODEL = figure(
            "twin_model",
            String.class,
            Unit.TEXT,
            "the model and hardware the llama.cpp cell's sim twin ran (the engine calibrated as a roofline)",
            Source.live(LLAMA));
    public static final Column<String> TWIN_HANDOVER_PATH = figure(
            "twin_handover_path",
            String.class,
            Unit.TEXT,
            "PD: the path the sim twin priced a prompt's handover on: the direct path as the cell measured it before it"
                    + " served (WRITEs of 1, 4 and 12 block objects into a decode instance's segment: rate @ fixed cost),"
                    + " or a put then a get on the store's measured link",
            Source.live(LLAMA));
    public static final Column<Number> PD_HANDOVER_LINK_BYTES_PER_S = extra(
            "pd_handover_link_bytes_per_s",
            Unit.BYTES_PER_S,
            "PD, direct: the handover path's payload rate measured before the cell served, the WRITE's and the decode"
                    + " instance's segment's (NaN: the store path, colocated or no twin)",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> REJECTED_RESTORE_REFUSED = figure(
            "rejected_restore_refused",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because the engine refused to restore it",
            Source.live(LLAMA));
    public static final Column<Number> REJECTED_STORE_MISS = figure(
            "rejected_store_miss",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because the store no longer held it",
            Source.live(LLAMA));
    public static final Column<Number> REJECTED_STORE_LEASE_EXPIRED = figure(
            "rejected_store_lease_expired",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because its lease expired",
            Source.live(LLAMA));
    public static final Column<Number> REJECTED_STORE_CHECKSUM_MISMATCH = figure(
            "rejected_store_checksum_mismatch",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because the store's checksum did not match",
            Source.live(LLAMA));
    public static final Column<Number> REJECTED_STORE_CONTENT_MISMATCH = figure(
            "rejected_store_content_mismatch",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because the store's content check failed",
            Source.live(LLAMA));
    public static final Column<Number> REJECTED_STORE_TIMEOUT = figure(
            "rejected_store_timeout",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because the fetch timed out",
            Source.live(LLAMA));
    public static final Column<Number> REJECTED_STORE_ERROR = figure(
            "rejected_store_error",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because the fetch failed",
            Source.live(LLAMA));
    public static final Column<Number> REJECTED_BLOCK_CHECKSUM = figure(
            "rejected_block_checksum",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because its payload checksum did not match",
            Source.live(LLAMA));
    public static final Column<Number> REJECTED_BLOCK_HEADER = figure(
            "rejected_block_header",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because its header was not the block's",
            Source.live(LLAMA));
    public static final Column<Number> PD_PREFILL_INSTANCES = figure(
            "pd_prefill_instances",
            Number.class,
            Unit.COUNT,
            "instances that only prefill (0 when colocated)",
            Source.live(LLAMA));
    public static final Column<String> PD_TRANSFER_PATH = figure(
            "pd_transfer",
            String.class,
            Unit.TEXT,
            "how a prompt's KV went from its prefill instance to its decode instance (direct over the transfer engine, or through the store)",
            Source.live(LLAMA));
    public static final Column<Number> HANDOVERS = figure(
            "handovers",
            Number.class,
            Unit.COUNT,
            "handovers of a prefilled prompt's state to a decode instance (measured phase)",
            Source.live(LLAMA));
    public static final Column<Number> HANDOVER_BYTES_PER_TOKEN = figure(
            "handover_bytes_per_token",
            Number.class,
            Unit.BYTES,
            "bytes handed over per prompt token (block headers included); NaN without a handover",
            Source.live(LLAMA));
    public static final Column<Number> DECODE_STEPS = figure(
            "decode_steps",
            Number.class,
            Unit.COUNT,
            "engine steps that advanced at least one decoding sequence",
            Source.live(LLAMA));
    public static final Column<Number> HANDOVER_CORRUPTED = figure(
            "handover_corrupted",
            Number.class,
            Unit.COUNT,
            "handovers the fault corrupted (recomputed on the decode instance)",
            Source.live(LLAMA));
    public static final Column<Number> HANDOVER_AUDITED_OBJECTS = figure(
            "handover_audited_objects",
            Number.class,
            Unit.BLOCKS,
            "handed-over objects whose restored content was compared with what the prefill side sent",
            Source.live(LLAMA));
    public static final Column<Number> HANDOVER_WRONG_HITS = figure(
            "handover_wrong_hits",
            Number.class,
            Unit.BLOCKS,
            "handed-over objects restored with content other than what was sent (counted in wrong_hits_used)",
            Source.live(LLAMA));
    public static final Column<Number> PD_PREFILL_QUEUE_MS_P99 = pdStageP99("prefill_queue");
    public static final Column<Number> PD_PREFILL_MS_P99 = pdStageP99("prefill");
    public static final Column<Number> PD_HANDOVER_MS_P99 = pdStageP99("handover");
    public static final Column<Number> PD_DECODE_QUEUE_MS_P99 = pdStageP99("decode_queue");
    public static final Column<Number> PD_RESTORE_MS_P99 = pdStageP99("restore");
    public static final Column<Number> PD_FIRST_DECODE_STEP_MS_P99 = pdStageP99("first_decode_step");
    public static final Column<String> PD_NOTE = figure(
            "pd_note",
            String.class,
            Unit.TEXT,
            "what the handover figures mean for this cell (colocated: none; disaggregated: what TTFT is the sum of)",
            Source.live(LLAMA));

    /** This target's columns: its row extras, the {@code cell.json} figures read back, its further figures. */
    public static final ColumnSet SET = new ColumnSet(
            List.of(ENGINE_CALIBRATED_DECODE_MS, HANDOVER_TRANSFER_MS_MEAN, HANDOVER_RESTORE_MS_MEAN),
            List.of(ENGINE_REUSE, ENGINE_SETUP_MS),
            List.of(
                    ENGINE,
                    TARGET_MODEL_SHA256,
                    TARGET_THREADS,
                    ENGINE_KV_LAYOUT,
                    ENGINE_SYSTEM_INFO,
                    ENGINE_LIBRARY,
                    KV_NAMESPACE,
                    BLOCK_OBJECT_BYTES,
                    FETCHED_BYTES_PER_FETCHED_TOKEN,
                    ENGINE_PREFILL_TOKENS,
                    ENGINE_DECODE_MS_PER_TOKEN,
                    RESTORES,
                    RESTORE_MS_MEAN,
                    TRANSFER_MS_TOTAL,
                    VERIFY_MS_TOTAL,
                    SPLIT_MS_TOTAL,
                    SPLIT_GB_PER_S,
                    ASSEMBLE_MS_TOTAL,
                    ASSEMBLE_GB_PER_S,
                    POLICY_RECOMPUTED_REQUESTS,
                    VERIFY_RESTORE,
                    VERIFY_RESTORE_SKIPPED,
                    VERIFY_RESTORE_CHECKS,
                    VERIFY_RESTORE_MAX_LOGIT_DIFF,
                    VERIFY_RESTORE_MS_TOTAL,
                    WRITE_BACK_FAILED_IN_PROGRESS,
                    WRITE_BACK_FAILED_NO_SPACE,
                    WRITE_BACK_FAILED_FAILED,
                    WRITE_BACK_FAILED_ERROR_AFTER_COMPLETION,
                    WRITE_BACK_ERROR,
                    TARGET_SEQUENCES,
                    TARGET_BATCH_TOKENS,
                    LOCAL_CAPACITY_BLOCKS,
                    LOCAL_CACHE_SEQUENCE_IDS,
                    CONTEXT_CELLS,
                    ENGINE_KV_STREAMS,
                    ENGINE_STEPS,
                    ENGINE_STEP_MS_MEAN,
                    ENGINE_STEP_TOKENS_MEAN,
                    ENGINE_STEP_CPU_S,
                    ENGINE_CPU_MS_PER_STEP_TOKEN,
                    ENGINE_STEP_SEQUENCES_MEAN,
                    LOCAL_LENT_BLOCKS,
                    LOCAL_KEPT_BLOCKS,
                    LOCAL_EVICTED_BLOCKS,
                    LOCAL_UNPLACED_BLOCKS,
                    TWIN,
                    ENGINE_CALIBRATION,
                    ENGINE_CALIBRATED_FLOPS,
                    ENGINE_CALIBRATED_BYTES_PER_S,
                    ENGINE_CALIBRATED_ATTENTION_EFFICIENCY,
                    ENGINE_CALIBRATED_SMALL_PASS_ATTENTION_EFFICIENCY,
                    ENGINE_CALIBRATED_SMALL_PASS_TOKENS,
                    ENGINE_CALIBRATED_PREFILL_BEHIND_CONTEXT_MS,
                    ENGINE_CALIBRATED_CONTEXT_TOKENS,
                    ENGINE_CALIBRATED_KV_LOAD_LATENCY_US,
                    ENGINE_CALIBRATED_KV_LOAD_BYTES_PER_S,
                    ENGINE_CALIBRATION_WORST_ERROR,
                    ENGINE_CALIBRATION_CLIPS,
                    TWIN_MODEL,
                    TWIN_HANDOVER_PATH,
                    PD_HANDOVER_LINK_BYTES_PER_S,
                    REJECTED_RESTORE_REFUSED,
                    REJECTED_STORE_MISS,
                    REJECTED_STORE_LEASE_EXPIRED,
                    REJECTED_STORE_CHECKSUM_MISMATCH,
                    REJECTED_STORE_CONTENT_MISMATCH,
                    REJECTED_STORE_TIMEOUT,
                    REJECTED_STORE_ERROR,
                    REJECTED_BLOCK_CHECKSUM,
                    REJECTED_BLOCK_HEADER,
                    PD_PREFILL_INSTANCES,
                    PD_TRANSFER_PATH,
                    HANDOVERS,
                    HANDOVER_BYTES_PER_TOKEN,
                    DECODE_STEPS,
                    HANDOVER_CORRUPTED,
                    HANDOVER_AUDITED_OBJECTS,
                    HANDOVER_WRONG_HITS,
                    PD_PREFILL_QUEUE_MS_P99,
                    PD_PREFILL_MS_P99,
                    PD_HANDOVER_MS_P99,
                    PD_DECODE_QUEUE_MS_P99,
                    PD_RESTORE_MS_P99,
                    PD_FIRST_DECODE_STEP_MS_P99,
                    PD_NOTE,
                    REJECTED_HANDOVER_CHECKSUM,
                    REJECTED_HANDOVER_TRANSFER,
                    REJECTED_HANDOVER_OTHER));

    private LlamaColumns() {}

    /** The refused-block column of a llama.cpp cell for reason {@code why} ({@code restore_refused}, {@code store_<status>}, {@code block_checksum},
     * {@code block_header}). */
    public static Column<Number> llamaRejected(String why) {
        return switch (why) {
            case "restore_refused" -> REJECTED_RESTORE_REFUSED;
            case "store_miss" -> REJECTED_STORE_MISS;
            case "store_lease_expired" -> REJECTED_STORE_LEASE_EXPIRED;
            case "store_checksum_mismatch" -> REJECTED_STORE_CHECKSUM_MISMATCH;
            case "store_content_mismatch" -> REJECTED_STORE_CONTENT_MISMATCH;
            case "store_timeout" -> REJECTED_STORE_TIMEOUT;
            case "store_error" -> REJECTED_STORE_ERROR;
            case "block_checksum" -> REJECTED_BLOCK_CHECKSUM;
            case "block_header" -> REJECTED_BLOCK_HEADER;
            case "handover_checksum" -> REJECTED_HANDOVER_CHECKSUM;
            case "handover_transfer" -> REJECTED_HANDOVER_TRANSFER;
            case "handover_other" -> REJECTED_HANDOVER_OTHER;
            default -> throw new IllegalArgumentException("no column for a block refused as " + why);
        };
    }

    /** The write-back failure column of a llama.cpp cell for reason {@code why} (a refused put's status, or an error after completion). */
    public static Column<Number> llamaWriteBackFailed(String why) {
        return switch (why) {
            case "in_progress" -> WRITE_BACK_FAILED_IN_PROGRESS;
            case "no_space" -> WRITE_BACK_FAILED_NO_SPACE;
            case "failed" -> WRITE_BACK_FAILED_FAILED;
            case "error_after_completion" -> WRITE_BACK_FAILED_ERROR_AFTER_COMPLETION;
            default -> throw new IllegalArgumentException("no column for a write-back failed as " + why);
        };
    }

    /** The p99 of one stage of a disaggregated request's TTFT ({@code pd_<stage>_ms_p99}). */
    private static Column<Number> pdStageP99(String stage) {
        return figure(
                "pd_" + stage + "_ms_p99",
                Number.class,
                Unit.MS,
                "p99 of a disaggregated request's " + stage.replace('_', ' ')
                        + " (ms, from the intended start's breakdown; NaN when colocated)",
                Source.live(LLAMA));
    }
}
