package dev.kvlab.harness.openai.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.api.ReportJson;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.Flow;
import java.util.function.LongSupplier;

/**
 * One streamed completion as it arrives: Server-Sent Events lines ({@code data: {...}}) parsed on the HTTP
 * client's thread, each chunk that carries a generated token timed on arrival with the cell's clock. A chunk carries
 * a token when it has output text, or when it is a token chunk whose text is empty because the token prints nothing
 * (a special or partial-UTF-8 token: servers stream one chunk per token; random-weight models emit such tokens
 * often); not the role-only preamble of a chat stream nor the final chunk that only carries the finish reason and
 * the usage. The first such chunk is the first token (TTFT; vLLM's {@code bench serve} also takes the first chunk
 * with a choice, empty text included; AIPerf the first chunk with non-empty content; inference-perf the first chunk
 * of the stream); every later one is a token arrival. At the end the server's usage
 * ({@code stream_options.include_usage}) gives the prompt and output token counts and, where the engine reports
 * them, the cached prompt tokens ({@code usage.prompt_tokens_details.cached_tokens}, the OpenAI field, first; else
 * llama.cpp's {@code timings.cache_n}) and the engine's own prompt time ({@code timings.prompt_ms}). Lines are bounded.
 */
final class StreamedCompletion implements Flow.Subscriber<String> {

    /** What the stream tells its owner, on the client's threads. */
    interface Events {
        /** The first chunk carrying a token arrived at {@code nanos} (cell clock). */
        void firstText(long nanos);

        /** The stream ended (well or not). */
        void ended(Outcome o);
    }

    /**
     * A finished stream.
     *
     * @param status           HTTP status (-1: no response)
     * @param error            why it failed, or null
     * @param textChunks       arrival times (cell clock) of the chunks that carried a generated token, in order
     * @param completionTokens output tokens by the server's usage (-1: not reported)
     * @param promptTokens     prompt tokens by the server's usage (-1: not reported)
     * @param cachedTokens     prompt tokens served from the engine's cache as reported, negative ones too
     *                         ({@link #NOT_REPORTED}: not reported)
     * @param enginePromptMs   the engine's own prompt-processing time (NaN: not reported)
     * @param finishReason     the last finish_reason seen, or null
     * @param refused          the connection was refused: nothing listens at the endpoint
     */
    record Outcome(
            int status,
            String error,
            long[] textChunks,
            int completionTokens,
            int promptTokens,
            int cachedTokens,
            double enginePromptMs,
            String finishReason,
            boolean refused) {}

    private static final ObjectMapper JSON = ReportJson.mapper();

    /** {@link Outcome#cachedTokens()} of a response that reported none (a negative count is reported, and impossible). */
    static final int NOT_REPORTED = Integer.MIN_VALUE;

    private final LongSupplier clock;
    private final Events events;
    private final boolean chat;
    private volatile int status = -1;
    private Flow.Subscription subscription;
    private long[] chunks = new long[64];
    private int n;
    private int completionTokens = -1, promptTokens = -1, usageCached = NOT_REPORTED, timingsCached = NOT_REPORTED;
    private double promptMs = Double.NaN;
    private String finishReason, error;
    private final StringBuilder errorBody = new StringBuilder();
    private volatile boolean ended;

    StreamedCompletion(LongSupplier clock, boolean chat, Events events) {
        this.clock = clock;
        this.chat = chat;
        this.events = events;
    }

    void status(int s) {
        status = s;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        s.request(Long.MAX_VALUE);
    }

    /** Aborts the stream (a timeout); the outcome is the owner's to report. */
    void cancel() {
        ended = true;
        Flow.Subscription s = subscription;
        if (s != null) s.cancel();
    }

    @Override
    public void onNext(String line) {
        if (ended) return;
        long now = clock.getAsLong();
        if (line.length() > EngineClient.MAX_BODY) {
            fail("a streamed line of " + line.length() + " characters (limit " + EngineClient.MAX_BODY + ")");
            return;
        }
        if (status != 200) {
            if (errorBody.length() < 2000) errorBody.append(line.strip()).append(' ');
            return;
        }
        if (!line.startsWith("data:")) {
            if (line.startsWith("error:")) error = line.substring(6).strip();
            return;
        }
        String data = line.substring(5).strip();
        if (data.isEmpty() || data.equals("[DONE]")) return;
        JsonNode j;
        try {
            j = JSON.readTree(data);
        } catch (IOException e) {
            fail("a chunk that is not JSON: " + abbreviate(data));
            return;
        }
        if (j.has("error")) {
            error = abbreviate(j.get("error").toString());
            return;
        }
        JsonNode choice = j.path("choices").path(0);
        String text = chat
                ? choice.path("delta").path("content").asText("")
                : choice.path("text").asText("");
        boolean preamble = chat && choice.path("delta").has("role") && text.isEmpty();
        boolean token = !text.isEmpty()
                || !choice.isMissingNode()
                        && !preamble
                        && choice.path("finish_reason").isNull();
        if (token) {
            if (n == chunks.length) chunks = Arrays.copyOf(chunks, n * 2);
            chunks[n++] = now;
            if (n == 1) events.firstText(now);
        }
        if (choice.hasNonNull("finish_reason"))
            finishReason = choice.get("finish_reason").asText();
        JsonNode u = j.path("usage");
        if (u.isObject()) {
            if (u.has("completion_tokens"))
                completionTokens = u.get("completion_tokens").asInt();
            if (u.has("prompt_tokens")) promptTokens = u.get("prompt_tokens").asInt();
            JsonNode c = u.path("prompt_tokens_details").path("cached_tokens");
            if (c.isNumber()) usageCached = c.asInt();
        }
        JsonNode t = j.path("timings");
        if (t.isObject()) {
            if (t.path("cache_n").isNumber()) timingsCached = t.get("cache_n").asInt();
            if (t.path("prompt_ms").isNumber()) promptMs = t.get("prompt_ms").asDouble();
            if (promptTokens < 0
                    && t.path("prompt_n").isNumber()
                    && t.path("cache_n").isNumber())
                promptTokens = t.get("prompt_n").asInt() + t.get("cache_n").asInt();
            if (completionTokens < 0 && t.path("predicted_n").isNumber())
                completionTokens = t.get("predicted_n").asInt();
        }
    }

    private void fail(String why) {
        error = why;
        cancel();
        end();
    }

    @Override
    public void onError(Throwable t) {
        if (error == null) error = EngineClient.reason(t);
        refused |= EngineClient.refused(t);
        end();
    }

    @Override
    public void onComplete() {
        end();
    }

    private synchronized void end() {
        if (finished) return;
        finished = true;
        String why = error;
        if (why == null && status != 200)
            why = "http " + status
                    + (errorBody.isEmpty()
                            ? ""
                            : ": " + abbreviate(errorBody.toString().strip()));
        events.ended(new Outcome(
                status,
                why,
                Arrays.copyOf(chunks, n),
                completionTokens,
                promptTokens,
                usageCached != NOT_REPORTED ? usageCached : timingsCached,
                promptMs,
                finishReason,
                refused));
    }

    private boolean finished, refused;

    private static String abbreviate(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300) + "...";
    }
}
