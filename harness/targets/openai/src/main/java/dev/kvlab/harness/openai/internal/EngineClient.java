package dev.kvlab.harness.openai.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.ReportJson;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The HTTP client of an {@code openai} cell: HTTP/1.1 (what every engine server speaks), connections pooled and
 * reused, as many as requests in flight; its threads are the cell's own (their CPU is the harness's). The control
 * calls (health, tokenize, metrics, cache resets) are blocking and short (the JDK's client); completions stream
 * ({@link #stream}, {@link StreamingHttp}). Response bodies read whole are bounded ({@link #MAX_BODY}).
 */
public final class EngineClient implements AutoCloseable {

    /** Largest control response read whole, and largest streamed line. */
    static final int MAX_BODY = 16 << 20;

    private static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(10);

    private final HttpClient http;
    private final ExecutorService executor;
    private final ObjectMapper json = ReportJson.mapper();
    private final StreamingHttp streaming;

    /** A client whose threads (the JDK client's and one per streamed request) come from {@code executor}. */
    public EngineClient(ExecutorService executor) {
        this.executor = executor;
        this.streaming = new StreamingHttp(executor);
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(3))
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(executor)
                .build();
    }

    /** A blocking call's outcome: the status (-1 when nothing answered), the body (bounded) or why it failed. */
    public record Reply(int status, String body, String error) {
        public boolean ok() {
            return status >= 200 && status < 300;
        }

        public boolean unreachable() {
            return status < 0;
        }
    }

    public Reply get(URI base, String path) {
        return call(HttpRequest.newBuilder(base.resolve(path)).GET());
    }

    public Reply post(URI base, String path, JsonNode body) {
        return call(HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body == null ? "{}" : body.toString())));
    }

    private Reply call(HttpRequest.Builder b) {
        try {
            HttpResponse<byte[]> r =
                    http.send(b.timeout(CONTROL_TIMEOUT).build(), HttpResponse.BodyHandlers.ofByteArray());
            byte[] body = r.body();
            String text = new String(body, 0, Math.min(body.length, MAX_BODY), StandardCharsets.UTF_8);
            return new Reply(r.statusCode(), text, null);
        } catch (IOException e) {
            return new Reply(-1, "", reason(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reply(-1, "", "interrupted");
        }
    }

    /** Why a call failed, in words: nothing listening, timed out, or the I/O error. */
    static String reason(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof HttpConnectTimeoutException) return "connect timed out";
            if (t instanceof ConnectException) return "connection refused (nothing listening)";
            if (t instanceof HttpTimeoutException) return "timed out";
        }
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }

    /** True when {@code e} says nothing answers at the address (the endpoint is down), not that one exchange broke. */
    static boolean refused(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) if (t instanceof ConnectException) return true;
        return false;
    }

    /** The body parsed as JSON, or null. */
    public JsonNode json(Reply r) {
        if (!r.ok() || r.body().isEmpty()) return null;
        try {
            return json.readTree(r.body());
        } catch (IOException e) {
            return null;
        }
    }

    /** A tokenize call's outcome: the token count, or -1 and why there is none. */
    public record Tokenized(int count, String why) {}

    /**
     * The token count of {@code text} by the server's tokenizer ({@code POST /tokenize}: llama.cpp's {@code content},
     * vLLM's and SGLang's {@code prompt}), {@code withSpecial} counting the special tokens (BOS) the server adds to a
     * prompt; -1 where the server cannot tokenize.
     */
    public int tokenize(URI base, String model, String text, boolean withSpecial) {
        return tokenized(base, model, text, withSpecial).count();
    }

    /** {@link #tokenize}, saying why there is no count: no {@code /tokenize}, an error status, or an answer that is not a token count. */
    public Tokenized tokenized(URI base, String model, String text, boolean withSpecial) {
        ObjectNode b = json.createObjectNode();
        b.put("content", text);
        b.put("add_special", withSpecial);
        Reply first = post(base, "/tokenize", b);
        JsonNode n = json(first);
        Reply second = null;
        if (n == null || !n.has("tokens")) {
            ObjectNode v = json.createObjectNode();
            v.put("model", model);
            v.put("prompt", text);
            v.put("add_special_tokens", withSpecial);
            second = post(base, "/tokenize", v);
            n = json(second);
        }
        if (n != null && n.path("count").isNumber())
            return new Tokenized(n.get("count").asInt(), null);
        if (n != null && n.path("tokens").isArray())
            return new Tokenized(n.get("tokens").size(), null);
        Reply r = second != null ? second : first;
        if (r.unreachable()) return new Tokenized(-1, "POST /tokenize failed: " + r.error());
        if (first.status() == 404 && (second == null || second.status() == 404))
            return new Tokenized(-1, "the server has no /tokenize (http 404)");
        if (!r.ok())
            return new Tokenized(-1, "POST /tokenize answered http " + r.status() + " " + abbreviate(r.body()));
        return new Tokenized(
                -1,
                "POST /tokenize answered http " + r.status() + " with "
                        + (n == null ? "a body that is not JSON" : "JSON without a token count") + ": "
                        + abbreviate(r.body()));
    }

    private static String abbreviate(String s) {
        String t = s.strip();
        return t.length() <= 120 ? t : t.substring(0, 120) + "...";
    }

    /**
     * Sends one streamed completion; {@code sink} hears its status and lines as they arrive, on a thread of the
     * client's own that reads them ({@link StreamingHttp}; {@code https} through the JDK's client), and its end or
     * failure. Cancel it through {@link StreamedCompletion#cancel()}.
     */
    /** A streamed completion sent and waited for: its outcome and when its first token arrived ({@link System#nanoTime()}; -1: none). */
    record Completed(StreamedCompletion.Outcome outcome, long firstTokenNanos) {}

    /**
     * Sends one streamed completion as {@link #stream} does and waits for its end, at most its timeout and 5 s more.
     *
     * @throws TimeoutException when it has not ended by then
     */
    Completed complete(URI base, String path, String body, Duration timeout, boolean chat) throws TimeoutException {
        CompletableFuture<StreamedCompletion.Outcome> end = new CompletableFuture<>();
        long[] first = {-1};
        StreamedCompletion sink = new StreamedCompletion(System::nanoTime, chat, new StreamedCompletion.Events() {
            @Override
            public void firstText(long nanos) {
                first[0] = nanos;
            }

            @Override
            public void ended(StreamedCompletion.Outcome o) {
                end.complete(o);
            }
        });
        stream(base, path, body, timeout, sink);
        try {
            StreamedCompletion.Outcome o = end.get(timeout.toMillis() + 5000, TimeUnit.MILLISECONDS);
            return new Completed(o, first[0]);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for a completion", e);
        }
    }

    public void stream(URI base, String path, String body, Duration timeout, StreamedCompletion sink) {
        if ("http".equals(base.getScheme())) {
            streaming.stream(base, path, body, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()), sink);
            return;
        }
        HttpRequest req = HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .header("Accept", "text/event-stream")
                .timeout(timeout)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        http.sendAsync(req, info -> {
                    sink.status(info.statusCode());
                    return HttpResponse.BodySubscribers.fromLineSubscriber(sink);
                })
                .whenComplete((v, x) -> {
                    if (x != null) sink.onError(x);
                });
    }

    /** Prometheus text of {@code GET /metrics}, or null where the server has none (or it is off). */
    public String metrics(URI base) {
        Reply r = get(base, "/metrics");
        return r.ok() ? r.body() : null;
    }

    /** The slot ids of a llama.cpp server ({@code GET /slots}); empty where it has none. */
    public List<Integer> slots(URI base) {
        List<Integer> ids = new ArrayList<>();
        JsonNode n = json(get(base, "/slots"));
        if (n != null && n.isArray()) for (JsonNode s : n) ids.add(s.path("id").asInt(ids.size()));
        return ids;
    }

    @Override
    public void close() {
        streaming.close();
        http.shutdownNow();
        executor.shutdownNow();
    }
}
