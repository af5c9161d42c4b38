package dev.kvlab.harness.internal.openai;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.internal.engine.Served;
import dev.kvlab.harness.internal.engine.Server;
import dev.kvlab.harness.internal.engine.ServingListener;
import dev.kvlab.harness.internal.live.LiveLoop;
import dev.kvlab.harness.internal.plan.JsonOutput;
import dev.kvlab.workloads.api.Request;
import java.net.URI;
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
    private final LiveLoop loop;
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
    private final EngineTotals totals = new EngineTotals();

    EngineServer(OpenAiConfig.Resolved target, EngineClient client, LiveLoop loop, PromptText prompts) {
        this.target = target;
        this.client = client;
        this.loop = loop;
        this.prompts = prompts;
        this.timeoutNanos = target.timeout().toNanos();
        this.outstanding = new long[target.endpoints().size()];
        this.refused = new boolean[target.endpoints().size()];
    }

    @Override
    public void listener(ServingListener l) {
        listener = l;
    }

    @Override public long inFlight() { return inFlight; }
    @Override public int queued() { return 0; }

    @Override
    public String state() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < outstanding.length; i++)
            sb.append("\n  ").append(target.endpoints().get(i)).append(": ").append(outstanding[i]).append(" outstanding")
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
        EngineRequest s = new EngineRequest(r, intendedNanos, warmup, e);
        inFlight++;
        outstanding[e]++;
        listener.arrived(s, loop.now());
        String body = body(target, r.outputTokens(), prompts.of(r));
        s.stream = new StreamedCompletion(loop::now, target.api() == OpenAiConfig.Api.CHAT, new StreamedCompletion.Events() {
            @Override public void firstText(long nanos) { loop.post(() -> { if (!s.done) listener.firstToken(s, nanos); }); }
            @Override public void ended(StreamedCompletion.Outcome o) { loop.post(() -> finish(s, o)); }
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
            finish(s, new StreamedCompletion.Outcome(-1, "timed out after " + target.timeout().toMillis() + " ms (target.timeout)",
                    new long[0], -1, -1, -1, Double.NaN, null, false));
        }
    }

    /** The request body: the target's fields, then {@code extra_body} merged over them. */
    static String body(OpenAiConfig.Resolved target, int outputTokens, String text) {
        ObjectNode b = JsonOutput.mapper().createObjectNode();
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
            if (c.length > 0) totals.lastGap(c[0] - s.intendedNanos(), o.enginePromptMs());
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

    /** What the engine reported over the requests since the last {@link #reset} (the cell resets it as its measured phase starts). */
    static final class EngineTotals {
        long promptTokens, cachedTokens, workloadPromptTokens, responses, promptReported, cachedReported;
        final Histogram enginePromptMicros = new Histogram(3), ttftGapMicros = new Histogram(3);

        void reset() {
            promptTokens = cachedTokens = workloadPromptTokens = responses = promptReported = cachedReported = 0;
            enginePromptMicros.reset();
            ttftGapMicros.reset();
        }

        void add(StreamedCompletion.Outcome o, int workloadPrompt) {
            if (o.status() != 200) return;
            responses++;
            workloadPromptTokens += workloadPrompt;
            if (o.promptTokens() >= 0) {
                promptTokens += o.promptTokens();
                promptReported++;
            }
            if (o.cachedTokens() >= 0) {
                cachedTokens += o.cachedTokens();
                cachedReported++;
            }
        }

        /** Prompt tokens by the engine's usage, NaN unless every response reported them. */
        double reportedPromptTokens() {
            return responses > 0 && promptReported == responses ? promptTokens : Double.NaN;
        }

        /** Cached prompt tokens by the engine, NaN unless every response reported them. */
        double reportedCachedTokens() {
            return responses > 0 && cachedReported == responses ? cachedTokens : Double.NaN;
        }

        /** The client's TTFT of one request beside the engine's own prompt time. */
        void lastGap(long ttftNanos, double enginePromptMs) {
            if (Double.isNaN(enginePromptMs)) return;
            long engine = Math.round(enginePromptMs * 1000);
            enginePromptMicros.recordValue(Math.max(0, engine));
            ttftGapMicros.recordValue(Math.max(0, ttftNanos / 1000 - engine));
        }
    }
}
