package dev.kvlab.harness.openai.internal;

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
 * The result columns only the openai target produces, declared by it ({@code TargetProvider.columns()}) and registered with
 * every other column ({@link dev.kvlab.harness.api.Columns#all()}): the summary writer, the report, the Influx push,
 * {@code compare}, {@code merge} and docs/columns.md read them from the one registry. Columns other modules read
 * (the report's, the bundle's, the metrics push's) stay in {@link dev.kvlab.harness.api.Columns}.
 */
public final class OpenAiColumns {

    private static final String OPENAI = TargetKind.OPENAI;

    public static final Column<Number> HARNESS_HTTP_CPU_US_PER_REQUEST = detail(
            "harness_http_cpu_us_per_request",
            Unit.US,
            "of harness_cpu_us_per_request, the HTTP client's share",
            Source.live(OPENAI),
            Merge.PER_REQUEST);
    public static final Column<Number> HARNESS_TTFT_GAP_P50 = extra(
            "harness_ttft_gap_p50_ms",
            Unit.MS,
            "p50 over completed requests of client TTFT minus the engine's own prompt time (signed: below 0, the client saw its first token"
                    + " before the engine's prompt time ended)",
            Source.live(OPENAI),
            Merge.SAME);
    public static final Column<Number> HARNESS_TTFT_GAP_NEGATIVE = detail(
            "harness_ttft_gap_negative_requests",
            Unit.COUNT,
            "completed requests whose client TTFT was below the engine's own prompt time (a finding: the engine's timing covers more than"
                    + " the client waited for, or the two clocks disagree)",
            Source.live(OPENAI),
            Merge.SUM);
    public static final Column<Number> HARNESS_LOOPBACK_TTFT_P50 = extra(
            "harness_loopback_ttft_p50_us",
            Unit.US,
            "p50 TTFT of the harness's loopback self-test before the cell",
            Source.live(OPENAI),
            Merge.LARGEST);
    public static final Column<Number> HARNESS_LOOPBACK_TTFT_P99 = detail(
            "harness_loopback_ttft_p99_us",
            Unit.US,
            "p99 TTFT of the harness's loopback self-test before the cell",
            Source.live(OPENAI),
            Merge.LARGEST);
    public static final Column<Number> WORKLOAD_PROMPT_TOKENS = detail(
            "workload_prompt_tokens",
            Unit.TOKENS,
            "prompt tokens of the measured requests by the workload's own count",
            Source.live(OPENAI),
            Merge.SUM);
    public static final Column<Number> UNSENT_REQUESTS = detail(
            "unsent_requests",
            Unit.COUNT,
            "measured requests never sent (the target went down)",
            Source.live(OPENAI),
            Merge.SUM);
    public static final Column<Number> PROMPT_TOKEN_ERROR_MAX = detail(
            "prompt_token_error_max",
            Unit.TOKENS,
            "largest difference between the workload's and the engine's prompt token count",
            Source.live(OPENAI),
            Merge.LARGEST);
    public static final Column<String> ENGINES = figure(
            "engines",
            String.class,
            Unit.TEXT,
            "the engines behind the endpoints, as they name themselves",
            Source.live(OPENAI));
    public static final Column<String> CACHE_STATE_VERIFICATION = figure(
            "cache_state_verification",
            String.class,
            Unit.TEXT,
            "how (and whether) the cache state was verified before the measured phase",
            Source.live(OPENAI));
    public static final Column<Number> PROMPT_WORDS = figure(
            "prompt_words",
            Number.class,
            Unit.COUNT,
            "single-token words the prompts are made of",
            Source.live(OPENAI));
    public static final Column<Number> PROMPT_SPECIAL_TOKENS = figure(
            "prompt_special_tokens",
            Number.class,
            Unit.TOKENS,
            "special tokens the engine adds to every prompt",
            Source.live(OPENAI));
    public static final Column<String> PROMPT_TOKEN_CHECK = figure(
            "prompt_token_check",
            String.class,
            Unit.TEXT,
            "whether the server's tokenizer confirmed the prompts' token counts",
            Source.live(OPENAI));
    public static final Column<String> ENGINE_CACHED_PROMPT_TOKENS_REASON = figure(
            "engine_cached_prompt_tokens_reason",
            String.class,
            Unit.TEXT,
            "why engine_cached_prompt_tokens is unknown (NaN)",
            Source.live(OPENAI));
    public static final Column<Number> ENGINE_PROMPT_MS_P50 = figure(
            "engine_prompt_ms_p50",
            Number.class,
            Unit.MS,
            "p50 of the engine's own prompt time (timings.prompt_ms) over completed requests",
            Source.live(OPENAI));
    public static final Column<String> HARNESS_TTFT_GAP_NOTE = figure(
            "harness_ttft_gap_note",
            String.class,
            Unit.TEXT,
            "what harness_ttft_gap_negative_requests found, in words",
            Source.live(OPENAI));
    public static final Column<String> PROMPT_CONTEXT_CHECK = figure(
            "prompt_context_check",
            String.class,
            Unit.TEXT,
            "whether the prompts fit the engine's context",
            Source.live(OPENAI));
    public static final Column<String> TARGET_DOWN = figure(
            "target_down",
            String.class,
            Unit.TEXT,
            "why the cell stopped sending: every endpoint refused connections",
            Source.live(OPENAI));
    public static final Column<String> UNKNOWN_COLUMNS = figure(
            "unknown_columns",
            String.class,
            Unit.TEXT,
            "summary columns the target cannot know (null, never 0), and why",
            Source.live(OPENAI));
    public static final Column<String> TP_REASON =
            figure("tp_reason", String.class, Unit.TEXT, "why tp is unknown (null)", Source.live(OPENAI));

    /** This target's columns: its row extras, the {@code cell.json} figures read back, its further figures. */
    public static final ColumnSet SET = new ColumnSet(
            List.of(HARNESS_TTFT_GAP_P50, HARNESS_LOOPBACK_TTFT_P50),
            List.of(
                    HARNESS_HTTP_CPU_US_PER_REQUEST,
                    HARNESS_LOOPBACK_TTFT_P99,
                    HARNESS_TTFT_GAP_NEGATIVE,
                    WORKLOAD_PROMPT_TOKENS,
                    UNSENT_REQUESTS,
                    PROMPT_TOKEN_ERROR_MAX),
            List.of(
                    ENGINES,
                    CACHE_STATE_VERIFICATION,
                    PROMPT_WORDS,
                    PROMPT_SPECIAL_TOKENS,
                    PROMPT_TOKEN_CHECK,
                    ENGINE_CACHED_PROMPT_TOKENS_REASON,
                    ENGINE_PROMPT_MS_P50,
                    HARNESS_TTFT_GAP_NOTE,
                    PROMPT_CONTEXT_CHECK,
                    TARGET_DOWN,
                    UNKNOWN_COLUMNS,
                    TP_REASON));

    private OpenAiColumns() {}
}
