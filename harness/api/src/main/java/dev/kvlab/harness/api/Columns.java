package dev.kvlab.harness.api;

import static dev.kvlab.harness.api.Column.detail;
import static dev.kvlab.harness.api.Column.extra;
import static dev.kvlab.harness.api.Column.figure;

import dev.kvlab.harness.api.Column.Latency;
import dev.kvlab.harness.api.Column.Latency.Stat;
import dev.kvlab.harness.api.Column.Merge;
import dev.kvlab.harness.api.Column.Source;
import dev.kvlab.harness.api.Column.Unit;
import dev.kvlab.harness.api.config.ConfigKeys;
import dev.kvlab.harness.api.config.TargetKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The result columns, each named here and nowhere else: the {@link CellSummary} columns in {@code summary.csv} order
 * ({@link #SUMMARY}), the columns some clocks and targets add to a row ({@link #ROW_EXTRAS}, NaN where absent), and the
 * {@code cell.json} figures other code reads back ({@link #DETAILS}) and every other figure a clock or target reports
 * ({@link #FIGURES}). The summary writer, the report, the Influx push,
 * {@code kvlab compare}, {@code kvlab merge} and docs/columns.md read them from here.
 */
public final class Columns {

    private static final String EMULATED = TargetKind.EMULATED, OPENAI = TargetKind.OPENAI, LLAMA = TargetKind.LLAMA;

    // the run's identity and factor levels
    public static final Column<Long> SEED = of("seed", Long.class, Unit.NONE, "the run's seed");
    public static final Column<String> MODE = text("mode", "the clock: sim or live");
    public static final Column<String> CACHE_STATE = text(ConfigKeys.CACHE_STATE, "factor: cold, hot, ...");
    public static final Column<String> TIERS = text("tiers", "factor: local-only, remote-only, combined");
    public static final Column<String> POLICY = text("policy", "factor: the fetch-or-recompute policy");
    public static final Column<String> TRANSPORT = text("transport", "factor: the store's transport");
    public static final Column<String> PD = text("pd", "factor: colocated or disaggregated prefill and decode");
    // counts
    public static final Column<Long> REQUESTS = sum("requests", Unit.COUNT, "measured requests");
    public static final Column<Long> COMPLETED = sum("completed", Unit.COUNT, "of which completed");
    public static final Column<Long> FAILED = sum("failed", Unit.COUNT, "of which failed");
    // latencies: HdrHistogram percentiles of the whole run, ms (NaN: the metric has no values)
    public static final Column<Double> TTFT_P50 = latency("ttft_p50_ms", Metric.TTFT, Stat.P50);
    public static final Column<Double> TTFT_P99 = latency("ttft_p99_ms", Metric.TTFT, Stat.P99);
    public static final Column<Double> TPOT_P50 = latency("tpot_p50_ms", Metric.TPOT, Stat.P50);
    public static final Column<Double> TPOT_P99 = latency("tpot_p99_ms", Metric.TPOT, Stat.P99);
    public static final Column<Double> ITL_P50 = latency("itl_p50_ms", Metric.ITL, Stat.P50);
    public static final Column<Double> ITL_P99 = latency("itl_p99_ms", Metric.ITL, Stat.P99);
    public static final Column<Double> E2EL_P99 = latency("e2el_p99_ms", Metric.E2EL, Stat.P99);
    // rates and ratios
    public static final Column<Double> GOODPUT_RPS = recomputed(
            "goodput_rps", Unit.RPS, "requests per second that met every SLO given (over simulated_seconds)");
    public static final Column<Double> SLO_ATTAINMENT =
            recomputed("slo_attainment", Unit.RATIO, "good requests / requests");
    public static final Column<Double> LOCAL_HIT_RATIO =
            recomputed("local_hit_ratio", Unit.RATIO, "prompt tokens served by the local tier / prompt tokens");
    public static final Column<Double> REMOTE_HIT_RATIO = recomputed(
            "remote_hit_ratio", Unit.RATIO, "prompt tokens fetched from the store (verified) / prompt tokens");
    public static final Column<Long> FETCHED_BYTES = sum("fetched_bytes", Unit.BYTES, "bytes fetched from the store");
    public static final Column<Long> FALLBACKS =
            sum("fallbacks", Unit.BLOCKS, "blocks planned for fetch but recomputed because their fetch failed");
    public static final Column<Long> WRONG_HITS_USED = sum(
            "wrong_hits_used", Unit.BLOCKS, "fetched blocks used that the verifier's audit found wrong (must be 0)");
    // the summary's further columns
    public static final Column<Double> TTFT_MEAN = latency("ttft_mean_ms", Metric.TTFT, Stat.MEAN);
    public static final Column<Double> PREFILL_GPU_MS_MEAN = new Column<>(
            "prefill_gpu_ms_mean",
            Double.class,
            Unit.MS,
            "PD disaggregated, cold: modelled GPU-busy time of the prefill instances per measured request (NaN otherwise)",
            Source.both(EMULATED),
            Merge.SAME,
            null);
    public static final Column<Double> E2EL_P50 = latency("e2el_p50_ms", Metric.E2EL, Stat.P50);
    public static final Column<Double> TBT_P50 = latency("tbt_p50_ms", Metric.TBT, Stat.P50);
    public static final Column<Double> TBT_P99 = latency("tbt_p99_ms", Metric.TBT, Stat.P99);
    public static final Column<Double> QUEUE_P50 = latency("queue_p50_ms", Metric.QUEUE, Stat.P50);
    public static final Column<Double> QUEUE_P99 = latency("queue_p99_ms", Metric.QUEUE, Stat.P99);
    public static final Column<Double> FETCH_P50 = latency("fetch_p50_ms", Metric.FETCH, Stat.P50);
    public static final Column<Double> FETCH_P99 = latency("fetch_p99_ms", Metric.FETCH, Stat.P99);
    public static final Column<Double> SIMULATED_SECONDS = new Column<>(
            "simulated_seconds",
            Double.class,
            Unit.SECONDS,
            "span of the measured phase in the run's own clock (virtual in sim)",
            Source.EVERY,
            Merge.LARGEST,
            null);
    public static final Column<Double> WALL_SECONDS = new Column<>(
            "wall_seconds",
            Double.class,
            Unit.SECONDS,
            "wall-clock time of the run, config load to result",
            Source.EVERY,
            Merge.LARGEST,
            null);
    public static final Column<Double> THROUGHPUT_RPS =
            recomputed("throughput_rps", Unit.RPS, "completed / simulated_seconds");
    public static final Column<Double> OUTPUT_TOKENS_PER_S =
            recomputed("output_tokens_per_s", Unit.TOKENS_PER_S, "output tokens / simulated_seconds");
    public static final Column<Double> REMOTE_AVAILABLE_RATIO = of(
            "remote_available_ratio",
            Double.class,
            Unit.RATIO,
            "prompt tokens the store held in continuation of local hits / prompt tokens (before the policy)");
    public static final Column<Long> WRITTEN_BACK_BYTES =
            sum("written_back_bytes", Unit.BYTES, "bytes written back to the store");
    public static final Column<Long> REJECTED_BLOCKS =
            sum("rejected_blocks", Unit.BLOCKS, "fetched blocks that failed verification (or expired, or vanished)");
    public static final Column<String> MODEL = text("model", "model id");
    public static final Column<String> HARDWARE = text("hardware", "hardware id");
    public static final Column<Long> INSTANCES = of("instances", Long.class, Unit.COUNT, "engine instances");
    public static final Column<Long> TP = of("tp", Long.class, Unit.COUNT, "GPUs per instance");
    public static final Column<String> EMULATED_PARTS = text("emulated", "what is emulated in this run");

    /** The {@link CellSummary} columns, in {@code summary.csv} order (after {@code cell, replicate}). */
    public static final List<Column<?>> SUMMARY = List.of(
            SEED,
            MODE,
            CACHE_STATE,
            TIERS,
            POLICY,
            TRANSPORT,
            PD,
            REQUESTS,
            COMPLETED,
            FAILED,
            TTFT_P50,
            TTFT_P99,
            TPOT_P50,
            TPOT_P99,
            ITL_P50,
            ITL_P99,
            E2EL_P99,
            GOODPUT_RPS,
            SLO_ATTAINMENT,
            LOCAL_HIT_RATIO,
            REMOTE_HIT_RATIO,
            FETCHED_BYTES,
            FALLBACKS,
            WRONG_HITS_USED,
            TTFT_MEAN,
            PREFILL_GPU_MS_MEAN,
            E2EL_P50,
            TBT_P50,
            TBT_P99,
            QUEUE_P50,
            QUEUE_P99,
            FETCH_P50,
            FETCH_P99,
            SIMULATED_SECONDS,
            WALL_SECONDS,
            THROUGHPUT_RPS,
            OUTPUT_TOKENS_PER_S,
            REMOTE_AVAILABLE_RATIO,
            WRITTEN_BACK_BYTES,
            REJECTED_BLOCKS,
            MODEL,
            HARDWARE,
            INSTANCES,
            TP,
            EMULATED_PARTS);

    /** The columns DESIGN.md requires of every {@code summary.csv} (after {@code cell, replicate}): {@link #SUMMARY} up to {@link #WRONG_HITS_USED}. */
    public static final List<Column<?>> REQUIRED = SUMMARY.subList(0, SUMMARY.indexOf(WRONG_HITS_USED) + 1);

    // the store's own figures (the emulated target's store, both clocks)
    public static final Column<Number> STORE_USAGE = extra(
            "store_usage",
            Unit.RATIO,
            "bytes used / capacity of the store at the cell's end",
            Source.both(EMULATED),
            Merge.SAME);
    public static final Column<Number> STORE_OBJECTS = extra(
            "store_objects", Unit.COUNT, "objects in the store at the cell's end", Source.both(EMULATED), Merge.SAME);
    public static final Column<Number> STORE_EVICTED_OBJECTS = extra(
            "store_evicted_objects",
            Unit.COUNT,
            "objects the store evicted during the cell",
            Source.both(EMULATED),
            Merge.SAME);
    // a master failover (fault master-failover / master-partition): how long, what it cost, what was lost
    public static final Column<Number> FAILOVER_S = extra(
            "failover_s",
            Unit.SECONDS,
            "master-failover/-partition: from the strike until another master led and served (live: measured through etcd; sim: the modelled lease)",
            Source.both(EMULATED),
            Merge.LARGEST);
    public static final Column<Number> FAILOVER_FALLBACKS = extra(
            "failover_fallbacks",
            Unit.BLOCKS,
            "master-failover/-partition: blocks whose lookup, fetch or put found no master during the failover (each recomputed or not stored)",
            Source.both(EMULATED),
            Merge.SUM);
    public static final Column<Number> OBJECTS_LOST = extra(
            "objects_lost",
            Unit.COUNT,
            "master-failover/-partition: objects the old leader knew at the strike that the new leader did not (the oplog's tail; sim: not modelled, 0)",
            Source.both(EMULATED),
            Merge.SUM);
    // the link a live cell measured at its start
    public static final Column<Number> LINK_MEASURED_BYTES_PER_S = extra(
            "link_measured_bytes_per_s",
            Unit.BYTES_PER_S,
            "bandwidth of the store link the live cell measured at its start",
            Source.live(EMULATED),
            Merge.SAME);
    public static final Column<Number> LINK_MEASURED_LATENCY_US = extra(
            "link_measured_latency_us",
            Unit.US,
            "latency of the store link the live cell measured at its start",
            Source.live(EMULATED),
            Merge.SAME);
    // the live harness's own cost
    public static final Column<Number> HARNESS_CPU_US_PER_REQUEST = extra(
            "harness_cpu_us_per_request",
            Unit.US,
            "CPU time the harness's threads spent on the measured phase, per measured request",
            Source.live(EMULATED, OPENAI),
            Merge.PER_REQUEST);
    public static final Column<Number> HARNESS_OVERHEAD_US_PER_REQUEST = extra(
            "harness_overhead_us_per_request",
            Unit.US,
            "busy time of the harness's event loop per measured request",
            Source.live(),
            Merge.PER_REQUEST);
    public static final Column<Number> EVENT_LAG_P50_US = extra(
            "event_lag_p50_us",
            Unit.US,
            "p50 lag of the harness's event loop behind its schedule",
            Source.live(),
            Merge.LARGEST);
    public static final Column<Number> EVENT_LAG_P99_US = extra(
            "event_lag_p99_us",
            Unit.US,
            "p99 lag of the harness's event loop behind its schedule",
            Source.live(),
            Merge.LARGEST);
    public static final Column<Number> GC_PAUSE_MS = extra(
            "gc_pause_ms", Unit.MS, "JVM garbage-collection time during the cell", Source.live(EMULATED), Merge.SAME);
    // the sim twin of a live cell (its predictions next to what the live cell measured)
    public static final Column<Double> TWIN_TTFT_P50 = extra(
            "twin_ttft_p50_ms", Double.class, Unit.MS, "the sim twin's TTFT p50", Source.live(EMULATED), Merge.SAME);
    public static final Column<Double> TWIN_TTFT_P99 = extra(
            "twin_ttft_p99_ms", Double.class, Unit.MS, "the sim twin's TTFT p99", Source.live(EMULATED), Merge.SAME);
    public static final Column<Double> TWIN_FETCH_P50 = extra(
            "twin_fetch_p50_ms", Double.class, Unit.MS, "the sim twin's fetch p50", Source.live(EMULATED), Merge.SAME);
    public static final Column<Double> TWIN_GOODPUT_RPS = extra(
            "twin_goodput_rps", Double.class, Unit.RPS, "the sim twin's goodput", Source.live(EMULATED), Merge.SAME);
    public static final Column<Double> TWIN_ITL_P50 = extra(
            "twin_itl_p50_ms", Double.class, Unit.MS, "the sim twin's ITL p50", Source.live(EMULATED), Merge.SAME);
    public static final Column<Double> TWIN_ITL_P99 = extra(
            "twin_itl_p99_ms", Double.class, Unit.MS, "the sim twin's ITL p99", Source.live(EMULATED), Merge.SAME);
    public static final Column<Double> TWIN_TTFT_P50_LIVE_SHARE = extra(
            "twin_ttft_p50_live_share",
            Double.class,
            Unit.RATIO,
            "share of live TTFTs at or below the twin's p50 (0.5: a perfect match)",
            Source.live(EMULATED),
            Merge.SAME);
    public static final Column<String> TWIN_TRANSPORT_MODEL = new Column<>(
            "twin_transport_model",
            String.class,
            Unit.TEXT,
            "the link model the sim twin ran on",
            Source.live(EMULATED),
            Merge.SAME,
            null);
    // a real engine's own counters (the openai target)
    public static final Column<Number> ENGINE_PROMPT_TOKENS = extra(
            "engine_prompt_tokens",
            Unit.TOKENS,
            "prompt tokens of the measured requests by the engine's usage (NaN: not reported by every response)",
            Source.live(OPENAI),
            Merge.SUM);
    public static final Column<Number> ENGINE_CACHED_PROMPT_TOKENS = extra(
            "engine_cached_prompt_tokens",
            Unit.TOKENS,
            "of them, served from the engine's cache, as the engine reported per response",
            Source.live(OPENAI),
            Merge.SUM);
    public static final Column<Number> ENGINE_LOCAL_HIT_RATIO = extra(
            "engine_local_hit_ratio",
            Unit.RATIO,
            "of the engine's prompt tokens, those its own tiers served (GPU prefix cache, host memory) over the measured phase, by its counters"
                    + " (NaN with the reason: not reported, not split by tier, impossible, or a counter reset)",
            Source.live(OPENAI),
            Merge.RECOMPUTED);
    public static final Column<Number> ENGINE_EXTERNAL_HIT_RATIO = extra(
            "engine_external_hit_ratio",
            Unit.RATIO,
            "of the engine's prompt tokens, those a store outside the instance served (vLLM's KV connector, LMCache retrieval"
                    + " num_hit_tokens/num_requested_tokens, SGLang's storage_* cache_source) over the measured phase (NaN with the reason)",
            Source.live(OPENAI),
            Merge.RECOMPUTED);
    public static final Column<Number> ENGINE_DEVICE_HIT_RATIO = extra(
            "engine_device_hit_ratio",
            Unit.RATIO,
            "of the local hits, the GPU's share of the prompt tokens (SGLang cache_source=device; vLLM's prefix cache) (NaN: not reported)",
            Source.live(OPENAI),
            Merge.RECOMPUTED);
    public static final Column<Number> ENGINE_HOST_HIT_RATIO = extra(
            "engine_host_hit_ratio",
            Unit.RATIO,
            "of the local hits, host memory's share of the prompt tokens (SGLang cache_source=host) (NaN: not reported)",
            Source.live(OPENAI),
            Merge.RECOMPUTED);
    public static final Column<Number> ENGINE_STORAGE_HIT_RATIO = extra(
            "engine_storage_hit_ratio",
            Unit.RATIO,
            "storage's share of the prompt tokens (SGLang cache_source=storage_*: HiCache's L3, Mooncake, 3FS, files) (NaN: not reported)",
            Source.live(OPENAI),
            Merge.RECOMPUTED);
    public static final Column<Number> ENGINE_CACHED_HIT_RATIO = extra(
            "engine_cached_hit_ratio",
            Unit.RATIO,
            "engine_cached_prompt_tokens / engine_prompt_tokens: every tier together, as the responses reported them (vLLM's count includes"
                    + " its connector's hits) (NaN: not reported by every response, or impossible)",
            Source.live(OPENAI),
            Merge.RECOMPUTED);
    public static final Column<Number> ENGINE_LOOKUP_HIT_RATIO = extra(
            "engine_lookup_hit_ratio",
            Unit.RATIO,
            "LMCache's lookup pair num_lookup_hits/num_lookup_tokens over the measured phase: what its lookups found, not what it retrieved"
                    + " (NaN: not reported)",
            Source.live(OPENAI),
            Merge.RECOMPUTED);
    public static final Column<String> ENGINE_HITS_SOURCE = new Column<>(
            "engine_hits_source",
            String.class,
            Unit.TEXT,
            "where the engine's hit ratios came from",
            Source.live(OPENAI),
            Merge.RECOMPUTED,
            null);
    // a real engine's KV in kvlab's store (the llama.cpp target)
    public static final Column<Number> FETCHED_TOKENS = extra(
            "fetched_tokens",
            Unit.TOKENS,
            "prompt tokens of the measured requests whose KV came from the store (fetched, verified and restored)",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> ENGINE_KV_BYTES_PER_TOKEN = extra(
            "engine_kv_bytes_per_token",
            Unit.BYTES,
            "bytes of one block's KV payload per token, as llama.cpp's state holds it",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> ENGINE_STEP_WALL_OVER_CPU = extra(
            "engine_step_wall_over_cpu",
            Unit.RATIO,
            "the engine's steps' wall time over their threads' CPU time (above 1: the engine threads waited for a core, as when "
                    + "instances and the harness share a machine's cores)",
            Source.live(LLAMA),
            Merge.SAME);

    public static final Column<Number> ENGINE_STEP_TIME_OVER_TWIN = extra(
            "engine_step_time_over_twin",
            Unit.RATIO,
            "the engine's steps' wall time over what its sim twin's calibrated roofline charges for those very steps (each "
                    + "decoding token and prompt chunk as the engine ran them): 1 when the calibration holds; off 1 when the "
                    + "machine ran faster or slower than when it was calibrated, or the roofline does not hold at these steps",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> ENGINE_PREFILL_TOKENS_PER_S = extra(
            "engine_prefill_tokens_per_s",
            Unit.TOKENS_PER_S,
            "the engine's prefill rate over the measured requests (tokens prefilled / time prefilling, after restores)",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> ENGINE_CALIBRATED_PREFILL_TOKENS_PER_S = extra(
            "engine_calibrated_prefill_tokens_per_s",
            Unit.TOKENS_PER_S,
            "the engine's prefill rate measured by the cell's calibration (the twin's and the prediction's roofline)",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> BREAKEVEN_PREDICTED_TOKENS = extra(
            "breakeven_predicted_tokens",
            Unit.TOKENS,
            "the prefix length from which fetching beats recomputing (up to the model's context), as kvlab breakeven predicts on the calibration and the measured link for a request of the workload",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> SHARED_PREFIX_TOKENS = extra(
            "shared_prefix_tokens",
            Unit.TOKENS,
            "the prompt prefix the workload's requests share (whole blocks): the length the predictions are made at",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> PREDICTED_RECOMPUTE_MS = extra(
            "predicted_recompute_ms",
            Unit.MS,
            "predicted time to recompute the shared prefix with the workload's suffix (in the engine's passes)",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> PREDICTED_FETCH_MS = extra(
            "predicted_fetch_ms",
            Unit.MS,
            "predicted time to fetch the shared prefix's KV, load it into the engine and prefill the suffix behind it",
            Source.live(LLAMA),
            Merge.SAME);

    // prefill/decode disaggregation on a real engine (the llama.cpp target): the handover and what decoding met
    public static final Column<Number> HANDOVER_BYTES = extra(
            "handover_bytes",
            Unit.BYTES,
            "PD: bytes of prompt KV the prefill instances handed to the decode instances for the measured requests (llama.cpp's rows with a"
                    + " 32-byte header per block; direct also the state's per-layer framing; 0 when colocated)",
            Source.live(LLAMA),
            Merge.SUM);
    public static final Column<Number> HANDOVER_TOKENS = extra(
            "handover_tokens",
            Unit.TOKENS,
            "PD: prompt tokens whose KV was handed over (0 when colocated)",
            Source.live(LLAMA),
            Merge.SUM);
    public static final Column<Number> DECODE_PREFILL_TOKENS = extra(
            "decode_prefill_tokens",
            Unit.TOKENS,
            "prompt tokens computed by instances that decode (disaggregated: the decode instances, only for handovers that failed;"
                    + " colocated: every prompt token computed)",
            Source.live(LLAMA),
            Merge.SUM);
    public static final Column<Number> PD_FALLBACKS = extra(
            "pd_fallbacks",
            Unit.COUNT,
            "PD: handovers that failed (transfer error, a block failing verification, a refused restore) and were recomputed on the decode"
                    + " instance (never used)",
            Source.live(LLAMA),
            Merge.SUM);
    public static final Column<Number> DECODE_STEPS_WITH_PROMPT_SHARE = extra(
            "decode_steps_with_prompt_share",
            Unit.RATIO,
            "of the engine steps that advanced decoding sequences, the share that also carried prompt tokens (each stalls every decoding"
                    + " sequence of its instance for the prompt chunk's time; 0 when disaggregated and no handover failed)",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> DECODE_STEPS_DESCHEDULED_SHARE = extra(
            "decode_steps_descheduled_share",
            Unit.RATIO,
            "of the engine steps that advanced decoding sequences, the share whose wall time exceeded their engine thread's CPU"
                    + " time by 1 ms or more: the thread waited for a core (another instance, the harness or the machine's other"
                    + " work ran on it), and every decoding sequence's gap grew by that wait (the machine's share of an ITL tail)",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> PD_PREFILL_MS_P50 = extra(
            "pd_prefill_ms_p50",
            Unit.MS,
            "PD: p50 over completed requests of the prefill (prefill admission to the prompt's last token)",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> PD_HANDOVER_MS_P50 = extra(
            "pd_handover_ms_p50",
            Unit.MS,
            "PD: p50 of the handover (the prompt's last token to its KV in the decode side's buffer or the store: staging or split, transfer)",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> PD_DECODE_QUEUE_MS_P50 = extra(
            "pd_decode_queue_ms_p50",
            Unit.MS,
            "PD: p50 of the wait for a decode sequence after the handover arrived",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> PD_RESTORE_MS_P50 = extra(
            "pd_restore_ms_p50",
            Unit.MS,
            "PD: p50 of the decode side's get (store), verification and restore, up to the client's first token",
            Source.live(LLAMA),
            Merge.SAME);
    public static final Column<Number> PD_FIRST_DECODE_STEP_MS_P50 = extra(
            "pd_first_decode_step_ms_p50",
            Unit.MS,
            "PD: p50 of the first decode step on the decode instance (first to second token)",
            Source.live(LLAMA),
            Merge.SAME);

    /**
     * Columns some clocks or targets add to a {@code summary.csv}/{@code summary.json} row (NaN in the rows of the others): kvlab's
     * own; with those the targets declare, {@link #rowExtras()}.
     */
    public static final List<Column<?>> ROW_EXTRAS = List.of(
            STORE_USAGE,
            STORE_OBJECTS,
            STORE_EVICTED_OBJECTS,
            FAILOVER_S,
            FAILOVER_FALLBACKS,
            OBJECTS_LOST,
            LINK_MEASURED_BYTES_PER_S,
            LINK_MEASURED_LATENCY_US,
            HARNESS_CPU_US_PER_REQUEST,
            HARNESS_OVERHEAD_US_PER_REQUEST,
            EVENT_LAG_P50_US,
            EVENT_LAG_P99_US,
            GC_PAUSE_MS,
            TWIN_TTFT_P50,
            TWIN_TTFT_P99,
            TWIN_ITL_P50,
            TWIN_ITL_P99,
            TWIN_FETCH_P50,
            TWIN_GOODPUT_RPS,
            TWIN_TTFT_P50_LIVE_SHARE,
            ENGINE_PROMPT_TOKENS,
            ENGINE_CACHED_PROMPT_TOKENS,
            ENGINE_LOCAL_HIT_RATIO,
            ENGINE_EXTERNAL_HIT_RATIO,
            ENGINE_DEVICE_HIT_RATIO,
            ENGINE_HOST_HIT_RATIO,
            ENGINE_STORAGE_HIT_RATIO,
            ENGINE_CACHED_HIT_RATIO,
            ENGINE_LOOKUP_HIT_RATIO,
            FETCHED_TOKENS,
            ENGINE_KV_BYTES_PER_TOKEN,
            ENGINE_STEP_WALL_OVER_CPU,
            ENGINE_STEP_TIME_OVER_TWIN,
            ENGINE_PREFILL_TOKENS_PER_S,
            ENGINE_CALIBRATED_PREFILL_TOKENS_PER_S,
            BREAKEVEN_PREDICTED_TOKENS,
            SHARED_PREFIX_TOKENS,
            PREDICTED_RECOMPUTE_MS,
            PREDICTED_FETCH_MS,
            HANDOVER_BYTES,
            HANDOVER_TOKENS,
            DECODE_PREFILL_TOKENS,
            PD_FALLBACKS,
            DECODE_STEPS_WITH_PROMPT_SHARE,
            DECODE_STEPS_DESCHEDULED_SHARE,
            PD_PREFILL_MS_P50,
            PD_HANDOVER_MS_P50,
            PD_DECODE_QUEUE_MS_P50,
            PD_RESTORE_MS_P50,
            PD_FIRST_DECODE_STEP_MS_P50);

    // cell.json figures (not row columns) that other code reads back
    public static final Column<Number> WARMUP_REQUESTS =
            detail("warmup_requests", Unit.COUNT, "requests of the warm-up phase", Source.EVERY, Merge.SUM);
    // what a llama.cpp cell (a capacity probe) took over from the probe before it, and what its setup cost

    /** {@code cell.json} figures other code reads back (never row columns): kvlab's own; with the targets', {@link #details()}. */
    public static final List<Column<?>> DETAILS = List.of(TWIN_TRANSPORT_MODEL, ENGINE_HITS_SOURCE, WARMUP_REQUESTS);

    // the cell's run (every target)
    public static final Column<String> EARLY_STOP_VERDICT = figure(
            "early_stop_verdict",
            String.class,
            Unit.TEXT,
            "measurement.early_stop: the SLO verdict the live cell stopped sending on (pass, fail, undecided)",
            Source.live());
    public static final Column<Number> EARLY_STOP_DECIDED_AT = figure(
            "early_stop_decided_at",
            Number.class,
            Unit.COUNT,
            "measurement.early_stop: completed measured requests when the verdict was decided",
            Source.live());
    public static final Column<Number> STORE_EVICTION_RUNS = figure(
            "store_eviction_runs",
            Number.class,
            Unit.COUNT,
            "eviction passes the store master ran during the cell",
            Source.both(EMULATED, LLAMA));
    // the emulated target's serving model and store tier (both clocks)
    public static final Column<Number> VERIFIED_BLOCKS = figure(
            "verified_blocks",
            Number.class,
            Unit.BLOCKS,
            "fetched blocks that passed verification and were used",
            Source.both(EMULATED));
    public static final Column<Number> WRITTEN_BACK_BLOCKS = figure(
            "written_back_blocks",
            Number.class,
            Unit.BLOCKS,
            "blocks written back to the store",
            Source.both(EMULATED, LLAMA));
    public static final Column<Number> WRITE_BACK_SKIPPED = figure(
            "write_back_skipped",
            Number.class,
            Unit.BLOCKS,
            "write-backs skipped: already stored or being stored by another writer",
            Source.both(EMULATED, LLAMA));
    public static final Column<Number> WRITE_BACK_NO_SPACE = figure(
            "write_back_no_space",
            Number.class,
            Unit.BLOCKS,
            "write-backs the store refused for lack of space",
            Source.both(EMULATED));
    public static final Column<Number> WRITE_BACK_FAILED = figure(
            "write_back_failed", Number.class, Unit.BLOCKS, "blocks whose write-back failed", Source.both(EMULATED));
    public static final Column<Number> WRITE_BACK_DROPPED = figure(
            "write_back_dropped",
            Number.class,
            Unit.BLOCKS,
            "blocks not written back because the instance's write-back queue was full",
            Source.both(EMULATED));
    public static final Column<Number> HANDOFF_BYTES = figure(
            "handoff_bytes",
            Number.class,
            Unit.BYTES,
            "PD disaggregated: KV bytes handed from prefill to decode instances",
            Source.both(EMULATED));
    public static final Column<Number> ITERATIONS = figure(
            "iterations",
            Number.class,
            Unit.COUNT,
            "engine iterations (batched steps) over every instance",
            Source.both(EMULATED));
    public static final Column<Number> HBM_BLOCKS_PER_INSTANCE = figure(
            "hbm_blocks_per_instance",
            Number.class,
            Unit.BLOCKS,
            "KV blocks one instance's HBM holds",
            Source.both(EMULATED));
    public static final Column<Number> HBM_EVICTIONS = figure(
            "hbm_evictions",
            Number.class,
            Unit.BLOCKS,
            "KV blocks evicted from HBM over every instance",
            Source.both(EMULATED));
    public static final Column<Number> GPU_UTILIZATION = figure(
            "gpu_utilization",
            Number.class,
            Unit.RATIO,
            "modelled GPU-busy time / (instances x simulated_seconds)",
            Source.both(EMULATED));
    public static final Column<Number> SIM_EVENTS =
            figure("sim_events", Number.class, Unit.COUNT, "events the discrete-event loop ran", Source.sim(EMULATED));
    // an injected fault (fault: ...), both clocks unless said
    public static final Column<String> FAULT =
            figure("fault", String.class, Unit.TEXT, "the fault injected", Source.both(EMULATED, LLAMA));
    public static final Column<Number> FAULT_AT_S = figure(
            "fault_at_s",
            Number.class,
            Unit.SECONDS,
            "when the fault struck, seconds into the measured phase (NaN: it never struck)",
            Source.both(EMULATED, LLAMA));
    public static final Column<Number> FAULT_END_S = figure(
            "fault_end_s",
            Number.class,
            Unit.SECONDS,
            "when the fault healed, seconds into the measured phase (NaN: it did not)",
            Source.both(EMULATED, LLAMA));
    public static final Column<String> FAULT_DESCRIPTION = figure(
            "fault_description", String.class, Unit.TEXT, "what the fault did, in words", Source.both(EMULATED, LLAMA));
    public static final Column<Number> FAULT_FAILED_READS = figure(
            "fault_failed_reads",
            Number.class,
            Unit.COUNT,
            "sim: store reads the modelled fault failed",
            Source.sim(EMULATED));
    public static final Column<Number> FAULT_NODES_KILLED = figure(
            "fault_nodes_killed",
            Number.class,
            Unit.COUNT,
            "node-crash: store nodes killed",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> FAULT_UNMOUNTED_AFTER_S = figure(
            "fault_unmounted_after_s",
            Number.class,
            Unit.SECONDS,
            "node-crash: seconds until the master unmounted the killed nodes' segments",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> FAULT_CORRUPTED_STRETCHES = figure(
            "fault_corrupted_stretches",
            Number.class,
            Unit.COUNT,
            "corrupt: stretches of stored bytes flipped",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> FAULT_MASTER_DOWN_S = figure(
            "fault_master_down_s",
            Number.class,
            Unit.SECONDS,
            "master-restart: seconds the master was down",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> FAULT_DELAYED_BATCHES = figure(
            "fault_delayed_batches",
            Number.class,
            Unit.COUNT,
            "link-delay/link-loss: transfer batches the fault delayed",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> FAULT_LOST_BATCHES = figure(
            "fault_lost_batches",
            Number.class,
            Unit.COUNT,
            "link-loss: transfer batches the fault lost",
            Source.live(EMULATED, LLAMA));
    public static final Column<String> FAULT_ERROR = figure(
            "fault_error",
            String.class,
            Unit.TEXT,
            "why the fault's action failed, where it did",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> FAULT_OBJECTS_BEFORE = figure(
            "fault_objects_before",
            Number.class,
            Unit.COUNT,
            "master-failover/-partition: objects the old leader knew at the strike",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> FAULT_OBJECTS_AFTER = figure(
            "fault_objects_after",
            Number.class,
            Unit.COUNT,
            "master-failover/-partition: objects the new leader knew once it served",
            Source.live(EMULATED, LLAMA));
    public static final Column<String> FAULT_OLD_LEADER = figure(
            "fault_old_leader",
            String.class,
            Unit.TEXT,
            "master-failover/-partition: the master that led at the strike",
            Source.live(EMULATED, LLAMA));
    public static final Column<String> FAULT_NEW_LEADER = figure(
            "fault_new_leader",
            String.class,
            Unit.TEXT,
            "master-failover/-partition: the master that led after it",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> FAULT_EPOCH_BEFORE = figure(
            "fault_epoch_before",
            Number.class,
            Unit.NONE,
            "master-failover/-partition: the leader's epoch at the strike",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> FAULT_EPOCH_AFTER = figure(
            "fault_epoch_after",
            Number.class,
            Unit.NONE,
            "master-failover/-partition: the leader's epoch after it",
            Source.live(EMULATED, LLAMA));
    // the live harness's own cost, split (emulated target)
    public static final Column<Number> HARNESS_LOOP_CPU_US_PER_REQUEST = figure(
            "harness_loop_cpu_us_per_request",
            Number.class,
            Unit.US,
            "of harness_cpu_us_per_request, the event loop's work",
            Source.live(EMULATED));
    public static final Column<Number> HARNESS_IO_CPU_US_PER_REQUEST = figure(
            "harness_io_cpu_us_per_request",
            Number.class,
            Unit.US,
            "of harness_cpu_us_per_request, the I/O pool's tasks beyond the store calls",
            Source.live(EMULATED));
    public static final Column<Number> HARNESS_HANDOFF_CPU_US_PER_REQUEST = figure(
            "harness_handoff_cpu_us_per_request",
            Number.class,
            Unit.US,
            "CPU time handing work between the loop and the pool, per measured request",
            Source.live(EMULATED));
    public static final Column<Number> HARNESS_WAIT_CPU_US_PER_REQUEST = figure(
            "harness_wait_cpu_us_per_request",
            Number.class,
            Unit.US,
            "CPU time the harness's threads spent waiting (not working), per measured request",
            Source.live(EMULATED));
    public static final Column<Number> HARNESS_SPIN_US_PER_REQUEST = figure(
            "harness_spin_us_per_request",
            Number.class,
            Unit.US,
            "time the event loop spun for precise waits, per measured request",
            Source.live(EMULATED));
    public static final Column<Number> STORE_CALL_CPU_US_PER_REQUEST = figure(
            "store_call_cpu_us_per_request",
            Number.class,
            Unit.US,
            "CPU time in store calls and byte handling, per measured request",
            Source.live(EMULATED));
    public static final Column<Number> HARNESS_BUSY_SHARE = figure(
            "harness_busy_share",
            Number.class,
            Unit.RATIO,
            "busy time of the harness's event loop / the measured phase's span",
            Source.live(EMULATED));
    public static final Column<Number> HARNESS_EVENT_P50_US = figure(
            "harness_event_p50_us",
            Number.class,
            Unit.US,
            "p50 busy time of one event of the harness's loop",
            Source.live(EMULATED));
    public static final Column<Number> HARNESS_EVENT_P99_US = figure(
            "harness_event_p99_us",
            Number.class,
            Unit.US,
            "p99 busy time of one event of the harness's loop",
            Source.live(EMULATED));
    public static final Column<Number> HARNESS_EVENTS =
            figure("harness_events", Number.class, Unit.COUNT, "events the harness's loop ran", Source.live(EMULATED));
    public static final Column<Number> EVENT_LAG_MAX_US = figure(
            "event_lag_max_us",
            Number.class,
            Unit.US,
            "largest lag of the harness's event loop behind its schedule",
            Source.live(EMULATED));
    public static final Column<Number> JIT_WARMUP_PASSES = figure(
            "jit_warmup_passes",
            Number.class,
            Unit.COUNT,
            "passes over the serving path run to warm the JIT before the cell",
            Source.live(EMULATED));
    public static final Column<Number> JIT_COMPILE_MS = figure(
            "jit_compile_ms",
            Number.class,
            Unit.MS,
            "JIT compilation time during the cell (NaN: not reported by the JVM)",
            Source.live(EMULATED));
    public static final Column<Number> IO_SECONDS = figure(
            "io_seconds",
            Number.class,
            Unit.SECONDS,
            "wall time the store tier's I/O threads spent on its tasks",
            Source.live(EMULATED));
    // the live emulated store and its link
    public static final Column<Number> BLOCK_BYTES =
            figure("block_bytes", Number.class, Unit.BYTES, "bytes of one KV block", Source.live(EMULATED));
    public static final Column<String> STORE_BACKEND = figure(
            "store_backend",
            String.class,
            Unit.TEXT,
            "the store backend the live cell used",
            Source.live(EMULATED, LLAMA));
    public static final Column<String> TRANSPORT_NAME = figure(
            "transport_name",
            String.class,
            Unit.TEXT,
            "the transport the live cell's store moved bytes over",
            Source.live(EMULATED, LLAMA));
    public static final Column<String> LINK_MODEL = figure(
            "link_model",
            String.class,
            Unit.TEXT,
            "the link model the cell's auto policy decided on",
            Source.live(EMULATED));
    public static final Column<String> LINK_SOURCE = figure(
            "link_source",
            String.class,
            Unit.TEXT,
            "where the link model came from (measured at cell start, or transport_profile)",
            Source.live(EMULATED));
    public static final Column<String> LINK_MEASURED = figure(
            "link_measured",
            String.class,
            Unit.TEXT,
            "the link the live cell measured at its start, as a link spec",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> LINK_MEASURED_LOOKUP_US = figure(
            "link_measured_lookup_us",
            Number.class,
            Unit.US,
            "lookup time of the store link the live cell measured at its start",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> LINK_MEASURED_WAKE_US = figure(
            "link_measured_wake_us",
            Number.class,
            Unit.US,
            "what a one-block fetch after the store path idled 30 ms cost beyond one right behind another, measured at the cell's start",
            Source.live(EMULATED));
    public static final Column<Number> LINK_PROBE_ROUNDS = figure(
            "link_probe_rounds",
            Number.class,
            Unit.COUNT,
            "rounds of the link probe at the cell's start",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> LINK_PROBE_REPUTS = figure(
            "link_probe_reputs",
            Number.class,
            Unit.COUNT,
            "times the link probe's objects had to be put again (one did not come back)",
            Source.live(EMULATED));
    public static final Column<Number> LINK_MEASURED_END_BYTES_PER_S = figure(
            "link_measured_end_bytes_per_s",
            Number.class,
            Unit.BYTES_PER_S,
            "the sim twin: bandwidth of the store link measured at the cell's end",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> LINK_MEASURED_END_LATENCY_US = figure(
            "link_measured_end_latency_us",
            Number.class,
            Unit.US,
            "the sim twin: latency of the store link measured at the cell's end",
            Source.live(EMULATED, LLAMA));
    public static final Column<String> LINK_PROBE_END_ERROR = figure(
            "link_probe_end_error",
            String.class,
            Unit.TEXT,
            "the sim twin: why the end-of-cell link probe could not run",
            Source.live(EMULATED, LLAMA));
    public static final Column<Double> TWIN_LOCAL_HIT_RATIO = figure(
            "twin_local_hit_ratio",
            Double.class,
            Unit.RATIO,
            "the sim twin's local hit ratio, beside the measured local_hit_ratio (a local tier the twin keeps larger or smaller than the engine's shows here)",
            Source.live(EMULATED, LLAMA));
    public static final Column<Double> TWIN_REMOTE_HIT_RATIO = figure(
            "twin_remote_hit_ratio",
            Double.class,
            Unit.RATIO,
            "the sim twin's remote hit ratio, beside the measured remote_hit_ratio",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> TWIN_LINK_BYTES_PER_S = figure(
            "twin_link_bytes_per_s",
            Number.class,
            Unit.BYTES_PER_S,
            "the sim twin: bandwidth of the link it ran on (start and end probes bracketed)",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> TWIN_LINK_WAKE_US = figure(
            "twin_link_wake_us",
            Number.class,
            Unit.US,
            "the sim twin: what its fetches pay after the store path idled 20 ms or more (start and end probes; less after a shorter spell, nothing under 1 ms)",
            Source.live(EMULATED));
    public static final Column<String> IO_ERROR =
            figure("io_error", String.class, Unit.TEXT, "the store's first I/O error", Source.live(EMULATED));
    public static final Column<Number> AUDIT_HITS_CHECKED = figure(
            "audit_hits_checked",
            Number.class,
            Unit.BLOCKS,
            "fetched blocks the verifier's audit checked",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> AUDIT_WRONG_HITS = figure(
            "audit_wrong_hits",
            Number.class,
            Unit.BLOCKS,
            "fetched blocks the verifier's audit found wrong",
            Source.live(EMULATED, LLAMA));
    public static final Column<Number> AUDIT_UNAUDITED_BLOCKS = figure(
            "audit_unaudited_blocks",
            Number.class,
            Unit.BLOCKS,
            "blocks used that the audit could not check (written by someone else)",
            Source.live(EMULATED, LLAMA));
    // the openai target's cell
    public static final Column<String> TARGET_KIND = figure(
            "target_kind", String.class, Unit.TEXT, "the target kind that served the cell", Source.live(OPENAI, LLAMA));
    public static final Column<String> TARGET_MODEL = figure(
            "target_model", String.class, Unit.TEXT, "the model the endpoints served", Source.live(OPENAI, LLAMA));
    public static final Column<String> CACHE_STATE_PROTOCOL = figure(
            "cache_state_protocol",
            String.class,
            Unit.TEXT,
            "how the cell's cache state was made (reset, primed by the warm-up, ...)",
            Source.live(OPENAI, LLAMA));
    public static final Column<String> REQUEST_SHARD = figure(
            "request_shard",
            String.class,
            Unit.TEXT,
            "request-split cells: this host's shard (K/N)",
            Source.live(OPENAI));
    public static final Column<Number> MEASURED_PHASE_STARTED_EPOCH_MS = figure(
            "measured_phase_started_epoch_ms",
            Number.class,
            Unit.MS,
            "request-split cells: when this shard's measured phase started (epoch ms)",
            Source.live(OPENAI));
    // the live emulated store's refused fetches, by the reason the first block of a fetch was refused (LiveStore)
    public static final Column<Number> REJECTED_MISS = figure(
            "rejected_miss",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because the store no longer held it",
            Source.live(EMULATED));
    public static final Column<Number> REJECTED_LEASE_EXPIRED = figure(
            "rejected_lease_expired",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because its lease expired",
            Source.live(EMULATED));
    public static final Column<Number> REJECTED_CHECKSUM_MISMATCH = figure(
            "rejected_checksum_mismatch",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because its checksum did not match",
            Source.live(EMULATED));
    public static final Column<Number> REJECTED_CONTENT_MISMATCH = figure(
            "rejected_content_mismatch",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because its content did not match",
            Source.live(EMULATED));
    public static final Column<Number> REJECTED_TIMEOUT = figure(
            "rejected_timeout",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because the fetch timed out",
            Source.live(EMULATED));
    public static final Column<Number> REJECTED_ERROR = figure(
            "rejected_error",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because the fetch failed",
            Source.live(EMULATED));
    public static final Column<Number> REJECTED_BAD_LENGTH = figure(
            "rejected_bad_length",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because it had the wrong length",
            Source.live(EMULATED));
    public static final Column<Number> REJECTED_BAD_CONTENT = figure(
            "rejected_bad_content",
            Number.class,
            Unit.BLOCKS,
            "blocks not used because its bytes were not the block's",
            Source.live(EMULATED));

    // the llama.cpp target's cell
    // the llama.cpp cell's calibration (its sim twin's engine)
    // the llama.cpp cell's refused blocks, by reason

    // prefill/decode disaggregation on a real engine (cell.json figures beside the handover row columns)

    /**
     * Every further {@code cell.json} figure a clock or a target reports of its cell (never row columns), but those a target
     * declares itself ({@link #figures()} has both): each registered, so that no figure goes into a cell's extras unregistered.
     */
    public static final List<Column<?>> FIGURES = List.of(
            EARLY_STOP_VERDICT,
            EARLY_STOP_DECIDED_AT,
            STORE_EVICTION_RUNS,
            VERIFIED_BLOCKS,
            WRITTEN_BACK_BLOCKS,
            WRITE_BACK_SKIPPED,
            WRITE_BACK_NO_SPACE,
            WRITE_BACK_FAILED,
            WRITE_BACK_DROPPED,
            HANDOFF_BYTES,
            ITERATIONS,
            HBM_BLOCKS_PER_INSTANCE,
            HBM_EVICTIONS,
            GPU_UTILIZATION,
            SIM_EVENTS,
            FAULT,
            FAULT_AT_S,
            FAULT_END_S,
            FAULT_DESCRIPTION,
            FAULT_FAILED_READS,
            FAULT_NODES_KILLED,
            FAULT_UNMOUNTED_AFTER_S,
            FAULT_CORRUPTED_STRETCHES,
            FAULT_MASTER_DOWN_S,
            FAULT_DELAYED_BATCHES,
            FAULT_LOST_BATCHES,
            FAULT_ERROR,
            FAULT_OBJECTS_BEFORE,
            FAULT_OBJECTS_AFTER,
            FAULT_OLD_LEADER,
            FAULT_NEW_LEADER,
            FAULT_EPOCH_BEFORE,
            FAULT_EPOCH_AFTER,
            HARNESS_LOOP_CPU_US_PER_REQUEST,
            HARNESS_IO_CPU_US_PER_REQUEST,
            HARNESS_HANDOFF_CPU_US_PER_REQUEST,
            HARNESS_WAIT_CPU_US_PER_REQUEST,
            HARNESS_SPIN_US_PER_REQUEST,
            STORE_CALL_CPU_US_PER_REQUEST,
            HARNESS_BUSY_SHARE,
            HARNESS_EVENT_P50_US,
            HARNESS_EVENT_P99_US,
            HARNESS_EVENTS,
            EVENT_LAG_MAX_US,
            JIT_WARMUP_PASSES,
            JIT_COMPILE_MS,
            IO_SECONDS,
            BLOCK_BYTES,
            STORE_BACKEND,
            TRANSPORT_NAME,
            LINK_MODEL,
            LINK_SOURCE,
            LINK_MEASURED,
            LINK_MEASURED_LOOKUP_US,
            LINK_MEASURED_WAKE_US,
            LINK_PROBE_ROUNDS,
            LINK_PROBE_REPUTS,
            LINK_MEASURED_END_BYTES_PER_S,
            LINK_MEASURED_END_LATENCY_US,
            LINK_PROBE_END_ERROR,
            TWIN_LINK_BYTES_PER_S,
            TWIN_LINK_WAKE_US,
            TWIN_LOCAL_HIT_RATIO,
            TWIN_REMOTE_HIT_RATIO,
            IO_ERROR,
            AUDIT_HITS_CHECKED,
            AUDIT_WRONG_HITS,
            AUDIT_UNAUDITED_BLOCKS,
            TARGET_KIND,
            TARGET_MODEL,
            CACHE_STATE_PROTOCOL,
            REQUEST_SHARD,
            MEASURED_PHASE_STARTED_EPOCH_MS,
            REJECTED_MISS,
            REJECTED_LEASE_EXPIRED,
            REJECTED_CHECKSUM_MISMATCH,
            REJECTED_CONTENT_MISMATCH,
            REJECTED_TIMEOUT,
            REJECTED_ERROR,
            REJECTED_BAD_LENGTH,
            REJECTED_BAD_CONTENT);

    // capacity.json's summary entries (per searched cell): what a capacity costs
    public static final Column<Number> COST_PER_M_OUTPUT_TOKENS = extra(
            "cost_per_m_output_tokens",
            Unit.PRICE_PER_M_TOKENS,
            "capacity search with a price (target.price_per_hour: per GPU on the emulated target, per instance or endpoint on a real engine): the price per hour of the cell's instances over"
                    + " the output tokens per hour served within the SLO at its capacity, per million (mean over replicates; NaN without a price"
                    + " or a capacity)",
            Source.EVERY,
            Merge.SAME);
    public static final Column<Number> COST_VS_BASELINE = extra(
            "cost_vs_baseline",
            Unit.RATIO,
            "capacity search with a price: cost_per_m_output_tokens / the baseline cell's, paired by replicate and its interval blocked by"
                    + " seed as the capacity gain's (below 1: the cache makes each token served within the SLO cheaper)",
            Source.EVERY,
            Merge.SAME);

    /** {@code capacity.json} summary figures (per searched cell, not row columns). */
    public static final List<Column<?>> CAPACITY = List.of(COST_PER_M_OUTPUT_TOKENS, COST_VS_BASELINE);

    private Columns() {}

    /**
     * Every column: kvlab's ({@link #SUMMARY}, {@link #ROW_EXTRAS}, {@link #DETAILS}, {@link #FIGURES}, {@link #CAPACITY}, in that
     * order), then the columns the modules on the class path declare ({@link ColumnProvider}: the targets'), each set by what
     * it is ({@link #rowExtras()}, ...).
     */
    public static List<Column<?>> all() {
        return Registry.ALL;
    }

    /** Every row extra: {@link #ROW_EXTRAS}, then the targets' ({@link ColumnSet#rowExtras()}). */
    public static List<Column<?>> rowExtras() {
        return Registry.ROW_EXTRAS;
    }

    /** Every {@code cell.json} figure read back: {@link #DETAILS}, then the targets'. */
    public static List<Column<?>> details() {
        return Registry.DETAILS;
    }

    /** Every further {@code cell.json} figure: {@link #FIGURES}, then the targets'. */
    public static List<Column<?>> figures() {
        return Registry.FIGURES;
    }

    /** The column named {@code name}, if it is one. */
    public static Optional<Column<?>> named(String name) {
        return Optional.ofNullable(Registry.BY_NAME.get(name));
    }

    /** Whether {@code name} is a row extra (a column of summary rows that some cells have). */
    public static boolean isRowExtra(String name) {
        return Registry.ROW_EXTRA_NAMES.contains(name);
    }

    /** The names of the numeric {@link #SUMMARY} columns, in order (what a figure or a comparison may name as a metric). */
    public static List<String> numericSummaryNames() {
        return SUMMARY.stream().filter(Column::numeric).map(Column::name).toList();
    }

    /** The refused-fetch column of reason {@code why} (a {@code GetStatus} name, {@code BAD_LENGTH} or {@code BAD_CONTENT}). */
    public static Column<Number> rejected(String why) {
        return switch (why) {
            case "MISS" -> REJECTED_MISS;
            case "LEASE_EXPIRED" -> REJECTED_LEASE_EXPIRED;
            case "CHECKSUM_MISMATCH" -> REJECTED_CHECKSUM_MISMATCH;
            case "CONTENT_MISMATCH" -> REJECTED_CONTENT_MISMATCH;
            case "TIMEOUT" -> REJECTED_TIMEOUT;
            case "ERROR" -> REJECTED_ERROR;
            case "BAD_LENGTH" -> REJECTED_BAD_LENGTH;
            case "BAD_CONTENT" -> REJECTED_BAD_CONTENT;
            default -> throw new IllegalArgumentException("no column for a fetch refused as " + why);
        };
    }

    /** The names of {@code columns}, in order. */
    public static List<String> names(List<? extends Column<?>> columns) {
        return columns.stream().map(Column::name).toList();
    }

    /**
     * The one registry, made on first use (after this class's columns exist): kvlab's lists, then each {@link ColumnProvider}'s
     * found by {@link ServiceLoader} (in the order of their class names, so that the order does not depend on the class path's);
     * a name given twice is an error.
     */
    private static final class Registry {
        static final List<Column<?>> ROW_EXTRAS, DETAILS, FIGURES, ALL;
        static final Set<String> ROW_EXTRA_NAMES;
        static final Map<String, Column<?>> BY_NAME;

        static {
            List<ColumnSet> sets = new ArrayList<>();
            ServiceLoader.load(ColumnProvider.class, Columns.class.getClassLoader()).stream()
                    .sorted(Comparator.comparing(p -> p.type().getName()))
                    .forEach(p -> sets.add(p.get().columns()));
            List<Column<?>> row = new ArrayList<>(Columns.ROW_EXTRAS),
                    details = new ArrayList<>(Columns.DETAILS),
                    figures = new ArrayList<>(Columns.FIGURES);
            for (ColumnSet set : sets) {
                row.addAll(set.rowExtras());
                details.addAll(set.details());
                figures.addAll(set.figures());
            }
            ROW_EXTRAS = List.copyOf(row);
            DETAILS = List.copyOf(details);
            FIGURES = List.copyOf(figures);
            List<Column<?>> every = new ArrayList<>(SUMMARY);
            every.addAll(ROW_EXTRAS);
            every.addAll(DETAILS);
            every.addAll(FIGURES);
            every.addAll(CAPACITY);
            Map<String, Column<?>> m = new LinkedHashMap<>();
            for (Column<?> c : every)
                if (m.put(c.name(), c) != null) throw new IllegalStateException("column named twice: " + c.name());
            BY_NAME = Collections.unmodifiableMap(m);
            ALL = List.copyOf(m.values());
            ROW_EXTRA_NAMES = Set.copyOf(names(ROW_EXTRAS));
        }
    }

    private static <T> Column<T> of(String name, Class<T> type, Unit unit, String description) {
        return new Column<>(name, type, unit, description, Source.EVERY, Merge.SAME, null);
    }

    private static Column<String> text(String name, String description) {
        return new Column<>(name, String.class, Unit.TEXT, description, Source.EVERY, Merge.SAME, null);
    }

    private static Column<Long> sum(String name, Unit unit, String description) {
        return new Column<>(name, Long.class, unit, description, Source.EVERY, Merge.SUM, null);
    }

    private static Column<Double> recomputed(String name, Unit unit, String description) {
        return new Column<>(name, Double.class, unit, description, Source.EVERY, Merge.RECOMPUTED, null);
    }

    private static Column<Double> latency(String name, Metric metric, Stat stat) {
        String what = switch (stat) {
            case P50 -> "p50";
            case P99 -> "p99";
            case MEAN -> "mean";
        };
        return new Column<>(
                name,
                Double.class,
                Unit.MS,
                what + " of " + metric.id() + " (HdrHistogram, whole run)",
                Source.EVERY,
                Merge.RECOMPUTED,
                new Latency(metric, stat));
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
