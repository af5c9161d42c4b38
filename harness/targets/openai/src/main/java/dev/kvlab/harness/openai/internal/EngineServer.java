package dev.kvlab.harness.openai.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.ReportJson;
import dev.kvlab.harness.spi.LiveClock;
import dev.kvlab.harness.spi.Served;
import dev.kvlab.harness.spi.Server;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.workloads.api.Request;
import java.net.URI;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * A real engine (one or more OpenAI-compatible endpoints) as a cell's {@link Server}: each submitted request is
 * one streamed completion of prompt text with the request's exact token count ({@link PromptText}), {@code max_tokens}
 * its output length and {@code ignore_eos} so lengths are what the workload says. What the HTTP threads hear is
 * posted to the loop with the time it arrived; the listener hears the first token when it arrives and the later
 * ones, split over the tokens the server's usage says each chunk carried, when the stream ends. A refused, failed,
 * timed-out or truncated request fails (counted, named in {@code requests.csv}), never counts as fast. An endpoint
 * that refuses connections is down; when every endpoint is down the cell stops sending ({@link #down()}).
 */
final class EngineServer implements Server {

    private final OpenAiConfig.Resolved target;
    private final EngineClient client;
    private final LiveClock loop;
    private final PromptText prompts;
    private final long timeoutNanos;
    private final long[] outstanding;
    private final boolean[] refused;
    private ServingListener listener = ServingListener.NONE;
    private long inFlight, next;
    /** How often requests in flight are checked against their deadline (a timeout is late by at most this). */
    static final long SWEEP_NANOS = 250_000_000L;

    private final java.util.ArrayDeque<EngineRequest> sending = new java.util.ArrayDeque<>();
    private boolean sweepScheduled;
    private final EngineTotals totals;
    private final boolean[] cachedIsLocal;

    /** {@code kinds}: the engine serving each endpoint (a llama.cpp endpoint's per-response cached tokens are its local tier's). */
    EngineServer(
            OpenAiConfig.Resolved target,
            EngineClient client,
            LiveClock loop,
            PromptText prompts,
            List<EngineKind> kinds) {
        this.target = target;
        this.client = client;
        this.loop = loop;
        this.prompts = prompts;
        this.totals = new EngineTotals(prompts.specialTokens());
        this.cachedIsLocal = new boolean[kinds.size()];
        for (int i = 0; i < kinds.size(); i++) cachedIsLocal[i] = kinds.get(i) == EngineKind.LLAMA_CPP;
        this.timeoutNanos = target.timeout().toNanos();
        this.outstanding = new long[target.endpoints().size()];
        this.refused = new boolean[target.endpoints().size()];
    }

    @Override
    public void listener(ServingListener l) {
        listener = l;
    }

    @Override
    public long inFlight() {
        return inFlight;
    }

    @Override
    public int queued() {
        return 0;
    }

    @Override
    public String state() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < outstanding.length; i++)
            sb.append("\n  ")
                    .append(target.endpoints().get(i))
                    .append(": ")
                    .append(outstanding[i])
                    .append(" outstanding")
                    .append(refused[i] ? " (refusing connections)" : "");
        return sb.toString();
    }

    /** The engine's figures of the requests so far (since the cell's last reset of them). */
    EngineTotals totals() {
        return totals;
    }

    /** True when every endpoint refused its last connection: nothing more can be served. */
    boolean down() {
        for (boolean r : refused) if (!r) return false;
        return true;
    }

    private int route(Request r) {
        int n = outstanding.length;
        if (n == 1) return 0;
        return switch (target.routing()) {
            case ROUND_ROBIN -> (int) (next++ % n);
            case SESSION -> Math.floorMod(r.session().hashCode(), n);
            case LEAST_OUTSTANDING -> {
                int best = (int) (next++ % n);
                for (int k = 1; k < n; k++) {
                    int i = (int) ((best + k) % n);
                    if (outstanding[i] < outstanding[best]) best = i;
                }
                yield best;
            }
        };
    }

    @Override
    public Served submit(Request r, long intendedNanos, boolean warmup) {
        int e = route(r);
        EngineRequest s = new EngineRequest(r, intendedNanos, warmup, e, cachedIsLocal[e]);
        totals.sent(r);
        inFlight++;
        outstanding[e]++;
        listener.arrived(s, loop.now());
        String body = body(target, r.outputTokens(), prompts.of(r));
        s.stream = new StreamedCompletion(
                loop::now, target.api() == OpenAiConfig.Api.CHAT, new StreamedCompletion.Events() {
                    @Override
                    public void firstText(long nanos) {
                        loop.post(() -> {
                            if (!s.done) listener.firstToken(s, nanos);
                        });
                    }

                    @Override
                    public void ended(StreamedCompletion.Outcome o) {
                        loop.post(() -> finish(s, o));
                    }
                });
        URI base = target.endpoints().get(e);
        try {
            client.stream(base, target.path(), body, target.timeout(), s.stream);
        } catch (RuntimeException x) {
            s.stream.onError(x);
        }
        s.deadline = loop.now() + timeoutNanos;
        sending.add(s);
        if (!sweepScheduled) {
            sweepScheduled = true;
            loop.at(loop.now() + SWEEP_NANOS, this::sweep);
        }
        return s;
    }

    /**
     * Fails the requests past their deadline, oldest first (deadlines follow the order of sending), and comes back
     * {@link #SWEEP_NANOS} later while any is in flight: nothing stays scheduled long once all are done, so a phase
     * ends within that of its last request (the loop has no cancellation).
     */
    private void sweep() {
        sweepScheduled = false;
        long now = loop.now();
        while (!sending.isEmpty()) {
            EngineRequest s = sending.peekFirst();
            if (s.done) {
                sending.pollFirst();
                continue;
            }
            if (s.deadline > now) {
                sweepScheduled = true;
                loop.at(now + SWEEP_NANOS, this::sweep);
                return;
            }
            sending.pollFirst();
            s.stream.cancel();
            finish(
                    s,
                    new StreamedCompletion.Outcome(
                            -1,
                            "timed out after " + target.timeout().toMillis() + " ms (target.timeout)",
                            new long[0],
                            -1,
                            -1,
                            StreamedCompletion.NOT_REPORTED,
                            Double.NaN,
                            null,
                            false));
        }
    }

    /** The request body: the target's fields, then {@code extra_body} merged over them. */
    static String body(OpenAiConfig.Resolved target, int outputTokens, String text) {
        ObjectNode b = ReportJson.mapper().createObjectNode();
        b.put("model", target.model());
        if (target.api() == OpenAiConfig.Api.CHAT) {
            ObjectNode m = b.putArray("messages").addObject();
            m.put("role", "user");
            m.put("content", text);
        } else {
            b.put("prompt", text);
        }
        b.put("max_tokens", Math.max(1, outputTokens));
        b.put("stream", true);
        b.putObject("stream_options").put("include_usage", true);
        if (target.ignoreEos()) b.put("ignore_eos", true);
        b.setAll(target.extraBody());
        return b.toString();
    }

    private void finish(EngineRequest s, StreamedCompletion.Outcome o) {
        if (s.done) return;
        s.done = true;
        inFlight--;
        outstanding[s.endpoint]--;
        long now = loop.now();
        int planned = Math.max(1, s.request().outputTokens());
        long[] c = o.textChunks();
        String why = o.error();
        if (why == null && c.length == 0) why = "no token streamed (finish_reason " + o.finishReason() + ")";
        int tokens = o.completionTokens() >= 0 ? o.completionTokens() : c.length;
        if (why == null && tokens < planned)
            why = "truncated: " + tokens + " of " + planned + " output tokens (finish_reason " + o.finishReason() + ")";
        refused[s.endpoint] = o.refused();
        totals.add(o, s.request().inputTokens());
        if (why != null) {
            s.failure = why;
            listener.failed(s, now);
            return;
        }
        s.outputTokens = tokens;
        s.cachedTokens = o.cachedTokens();
        totals.lastGap(c[0] - s.intendedNanos(), o.enginePromptMs());
        tokens(s, c, tokens);
        listener.completed(s, c[c.length - 1]);
    }

    /** The output tokens after the first, spread over the later chunks as the usage's count says they carried them. */
    private void tokens(EngineRequest s, long[] c, int tokens) {
        int rest = tokens - 1, gaps = c.length - 1;
        if (rest <= 0) return;
        if (gaps == 0) {
            for (int i = 0; i < rest; i++) listener.token(s, c[0]);
            return;
        }
        for (int j = 1; j <= gaps; j++) {
            int k = (int) ((long) j * rest / gaps - (long) (j - 1) * rest / gaps);
            long from = c[j - 1], span = c[j] - from;
            for (int i = 1; i <= k; i++) listener.token(s, from + span * i / k);
        }
    }

    /**
     * What the engine reported over the requests since the last {@link #reset} (the cell resets it as its measured
     * phase starts), with what makes a figure impossible (more cached than prompt tokens, a negative count) and, over
     * a warm-up, what the workload's requests repeated (the hits an engine that caches could report).
     */
    /** What one phase's responses said about the engine's cache (see {@link EngineTotals}'s fields). */
    record Evidence(
            long responses,
            long cachedReported,
            long cachedNegative,
            String cachedNegativeExample,
            long cachedAbovePrompt,
            String cachedAbovePromptExample,
            long cachedBeyondSpecial,
            long maxCached,
            long cachedTokens,
            long repeatedPrefixTokens,
            long longestRepeatedPrefix) {}

    static final class EngineTotals {
        final int specialTokens;
        long promptTokens, cachedTokens, workloadPromptTokens, responses, promptReported, cachedReported;
        /** Responses whose cached count was negative / above their prompt count (impossible), and the first of each. */
        long cachedNegative, cachedAbovePrompt;

        String cachedNegativeExample, cachedAbovePromptExample;
        /** Responses with more cached tokens than the special tokens every prompt shares (a BOS alone is no hit), and the most. */
        long cachedBeyondSpecial, maxCached;
        /** Prompt tokens an earlier request of the cell had sent as a prefix (what an engine that caches could hit), and the longest such prefix. */
        long repeatedPrefixTokens, longestRepeatedPrefix;
        /** Block key → the most tokens of it a request of the cell sent (kept across phases: so is the engine's cache). */
        private final Map<Long, Integer> seenBlocks = new HashMap<>();

        final Histogram enginePromptMicros = new Histogram(3);
        /** Client TTFT minus the engine's prompt time per response (µs, signed: a negative gap is a finding, never clamped). */
        private long[] gaps = new long[256];

        private int gapCount, negativeGaps;

        EngineTotals(int specialTokens) {
            this.specialTokens = specialTokens;
        }

        void reset() {
            promptTokens = cachedTokens = workloadPromptTokens = responses = promptReported = cachedReported = 0;
            cachedNegative = cachedAbovePrompt =
                    cachedBeyondSpecial = maxCached = repeatedPrefixTokens = longestRepeatedPrefix = 0;
            cachedNegativeExample = cachedAbovePromptExample = null;
            enginePromptMicros.reset();
            gapCount = negativeGaps = 0;
        }

        void add(StreamedCompletion.Outcome o, int workloadPrompt) {
            if (o.status() != 200) return;
            responses++;
            workloadPromptTokens += workloadPrompt;
            if (o.promptTokens() >= 0) {
                promptTokens += o.promptTokens();
                promptReported++;
            }
            int c = o.cachedTokens();
            if (c == StreamedCompletion.NOT_REPORTED) return;
            cachedReported++;
            if (c < 0) {
                if (cachedNegative++ == 0) cachedNegativeExample = "cached_tokens " + c;
                return;
            }
            cachedTokens += c;
            maxCached = Math.max(maxCached, c);
            if (c > specialTokens) cachedBeyondSpecial++;
            if (o.promptTokens() >= 0 && c > o.promptTokens() && cachedAbovePrompt++ == 0)
                cachedAbovePromptExample = c + " cached of " + o.promptTokens() + " prompt tokens";
        }

        /**
         * A request sent: the prefix of its prompt an earlier request of the cell sent too, token for token ({@link PromptText}
         * makes a block's text from its key alone, its first {@code n} words for {@code n} tokens of it).
         */
        void sent(Request r) {
            long[] keys = r.blockKeys();
            int bt = Math.max(1, r.blockTokens()), left = r.inputTokens();
            long shared = 0;
            for (int b = 0; b < keys.length && left > 0; b++) {
                int n = Math.min(bt, left);
                Integer seen = seenBlocks.get(keys[b]);
                if (seen == null) break;
                shared += Math.min(n, seen);
                if (seen < n) break;
                left -= n;
            }
            repeatedPrefixTokens += shared;
            longestRepeatedPrefix = Math.max(longestRepeatedPrefix, shared);
            left = r.inputTokens();
            for (int b = 0; b < keys.length && left > 0; b++) {
                int n = Math.min(bt, left);
                seenBlocks.merge(keys[b], n, Math::max);
                left -= n;
            }
        }

        /** What the responses since the last {@link #reset} say about the engine's cache. */
        Evidence evidence() {
            return new Evidence(
                    responses,
                    cachedReported,
                    cachedNegative,
                    cachedNegativeExample,
                    cachedAbovePrompt,
                    cachedAbovePromptExample,
                    cachedBeyondSpecial,
                    maxCached,
                    cachedTokens,
                    repeatedPrefixTokens,
                    longestRepeatedPrefix);
        }

        /** Prompt tokens by the engine's usage, NaN unless every response reported them. */
        double reportedPromptTokens() {
            return responses > 0 && promptReported == responses ? promptTokens : Double.NaN;
        }

        /** Cached prompt tokens by the engine, NaN unless every response reported them, none negative. */
        double reportedCachedTokens() {
            return responses > 0 && cachedReported == responses && cachedNegative == 0 ? cachedTokens : Double.NaN;
        }

        /** Why {@link #reportedCachedTokens()} is NaN (null when it is not). */
        String cachedTokensReason() {
            if (responses == 0) return "no response";
            if (cachedNegative > 0)
                return cachedNegative + " of " + responses + " responses reported a negative cached-token count (e.g. "
                        + cachedNegativeExample + "): impossible";
            if (cachedReported != responses)
                return "the engine reported cached tokens in " + cachedReported + " of " + responses + " responses";
            return null;
        }

        /** The client's TTFT of one request beside the engine's own prompt time. */
        void lastGap(long ttftNanos, double enginePromptMs) {
            if (Double.isNaN(enginePromptMs)) return;
            long engine = Math.round(enginePromptMs * 1000);
            enginePromptMicros.recordValue(Math.max(0, engine));
            long gap = ttftNanos / 1000 - engine;
            if (gap < 0) negativeGaps++;
            if (gapCount == gaps.length) gaps = Arrays.copyOf(gaps, gapCount * 2);
            gaps[gapCount++] = gap;
        }

        /** The p50 of client TTFT minus the engine's prompt time (ms, signed), NaN with none. */
        double gapP50Ms() {
            if (gapCount == 0) return Double.NaN;
            long[] g = Arrays.copyOf(gaps, gapCount);
            Arrays.sort(g);
            return (gapCount % 2 == 1 ? g[gapCount / 2] : (g[gapCount / 2 - 1] + g[gapCount / 2]) / 2.0) / 1e3;
        }

        /** Responses whose client TTFT was below the engine's own prompt time, and of how many. */
        int negativeGaps() {
            return negativeGaps;
        }

        int gaps() {
            return gapCount;
        }
    }
}
