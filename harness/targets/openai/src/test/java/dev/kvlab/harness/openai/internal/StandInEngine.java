package dev.kvlab.harness.openai.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in OpenAI-compatible engine on loopback for the openai target's tests, speaking the endpoints and the
 * Prometheus text of the engine it imitates, shaped on their documentation:
 * <ul>
 * <li>vLLM ({@code /version}, {@code POST /reset_prefix_cache}, {@code POST /tokenize} with {@code count} and
 *     {@code max_model_len}, {@code usage.prompt_tokens_details.cached_tokens}): {@code vllm:prefix_cache_queries_total}
 *     / {@code vllm:prefix_cache_hits_total}, or before 0.9.2 {@code vllm:gpu_prefix_cache_*} (with the
 *     {@code _created} gauges), and with a KV connector {@code vllm:external_prefix_cache_*};</li>
 * <li>LMCache beside vLLM (its chunks in a tier vLLM's reset does not reach): {@code lmcache:num_requested_tokens},
 *     {@code num_hit_tokens} (retrieval), {@code num_lookup_tokens}, {@code num_lookup_hits} (lookup);</li>
 * <li>SGLang ({@code /get_server_info} with {@code tp_size}, {@code POST /flush_cache}): {@code sglang:prompt_tokens_total}
 *     and {@code sglang:cached_tokens_total} by {@code cache_source} ({@code device}, {@code host},
 *     {@code storage_MooncakeStore}; or unsplit).</li>
 * </ul>
 * Its tokenizer is one token per whitespace-separated word plus a BOS; its GPU prefix cache holds full blocks of
 * {@link #block} tokens (a prompt is cached after it is served). Knobs imitate hostile or broken engines: a reset that
 * answers 200 and empties nothing, cached counts that lie, truncated streams, counters that restart.
 */
final class StandInEngine implements AutoCloseable {

    enum Kind {
        NOTHING,
        VLLM,
        VLLM_PRE_092,
        SGLANG,
        SGLANG_UNSPLIT
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    final Kind kind;
    /** Tokens per cached block of the GPU prefix cache. */
    volatile int block = 16;
    /** The reset empties the caches (false: it answers 200 and keeps everything, vLLM PR #12284). */
    volatile boolean honestReset = true;
    /** vLLM with LMCache as its KV connector, chunks of this many tokens (0: no connector). */
    volatile int lmcacheChunk;
    /** SGLang's split of each hit over device, host and storage (fractions; the rest of a hit is storage's). */
    volatile double deviceShare = 0.5, hostShare = 0.3;
    /** SGLang HiCache's storage survives {@code /flush_cache} (sglang#40659): hits after the flush come from storage. */
    volatile boolean storageSurvivesFlush;
    /** Every response claims this many times its prompt tokens as cached (1: the truth). */
    volatile int cachedLie = 1;
    /** Every stream ends after half the tokens asked for. */
    volatile boolean truncate;
    /** After this many completions every counter starts again from 0 (an engine restart; 0: never). */
    volatile int restartAfter;
    /** Blocks the GPU prefix cache holds; past it, it is emptied (a crude eviction; 0: unbounded). */
    volatile int gpuBlocks;
    /** No {@code /metrics} (404). */
    volatile boolean noMetrics;
    /** {@code /tokenize} answers 200 with a body that is not JSON. */
    volatile boolean tokenizeNotJson;
    /** A non-streamed completion ({@code stream: false}, vLLM's JSON shape) takes this long per prompt token not cached, and per output token (ms). */
    volatile double prefillMsPerToken, decodeMsPerToken;
    /** The model's context (tokens), said in {@code /v1/models} and {@code /tokenize}. */
    volatile int context = 32768;

    private final HttpServer http;
    private final Set<List<String>> gpu = new HashSet<>(), connector = new HashSet<>(), storage = new HashSet<>();
    private double prompt, hits, extQueries, extHits, device, host, stored, lmRequested, lmHit, lmLookup, lmLookupHit;
    private final AtomicInteger completions = new AtomicInteger();
    final AtomicInteger resets = new AtomicInteger();

    StandInEngine(Kind kind) throws IOException {
        this.kind = kind;
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        http.setExecutor(
                Executors.newCachedThreadPool(r -> Thread.ofPlatform().daemon().unstarted(r)));
        http.createContext("/", this::handle);
        http.start();
    }

    URI base() {
        return URI.create("http://127.0.0.1:" + http.getAddress().getPort());
    }

    private boolean vllm() {
        return kind == Kind.VLLM || kind == Kind.VLLM_PRE_092;
    }

    private boolean sglang() {
        return kind == Kind.SGLANG || kind == Kind.SGLANG_UNSPLIT;
    }

    private void handle(HttpExchange x) throws IOException {
        try (x) {
            String p = x.getRequestURI().getPath();
            boolean get = x.getRequestMethod().equals("GET");
            if (get && p.equals("/health")) reply(x, 200, "{}");
            else if (get && p.equals("/v1/models"))
                reply(
                        x,
                        200,
                        "{\"object\":\"list\",\"data\":[{\"id\":\"standin\",\"object\":\"model\",\"max_model_len\":"
                                + context + "}]}");
            else if (get && p.equals("/version") && vllm())
                reply(x, 200, "{\"version\":\"" + (kind == Kind.VLLM ? "0.11.0" : "0.9.1") + "\"}");
            else if (get && p.equals("/get_server_info") && sglang())
                reply(
                        x,
                        200,
                        "{\"version\":\"0.5.4\",\"model_path\":\"standin\",\"page_size\":1,\"tp_size\":2,\"context_length\":"
                                + context + "}");
            else if (get && p.equals("/metrics") && kind != Kind.NOTHING && !noMetrics) reply(x, 200, metrics());
            else if (!get && p.equals("/tokenize")) tokenize(x);
            else if (!get && (p.equals("/reset_prefix_cache") && vllm() || p.equals("/flush_cache") && sglang()))
                reset(x);
            else if (!get && p.equals("/v1/completions")) complete(x);
            else reply(x, 404, "{\"error\":\"not found\"}");
        }
    }

    private static void reply(HttpExchange x, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders()
                .set("Content-Type", body.startsWith("{") ? "application/json" : "text/plain; version=0.0.4");
        x.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
        if (b.length > 0) x.getResponseBody().write(b);
    }

    private static List<String> tokens(String text) {
        List<String> t = new ArrayList<>();
        t.add("<s>");
        for (String w : text.strip().split("\\s+")) if (!w.isEmpty()) t.add(w);
        return t;
    }

    private void tokenize(HttpExchange x) throws IOException {
        if (tokenizeNotJson) {
            reply(x, 200, "<html>tokenizer unavailable</html>");
            return;
        }
        JsonNode b = JSON.readTree(x.getRequestBody());
        if (!b.has("prompt")) {
            reply(x, 400, "{\"error\":\"prompt is required\"}");
            return;
        }
        List<String> t = tokens(b.get("prompt").asText());
        if (!b.path("add_special_tokens").asBoolean(true)) t.removeFirst();
        reply(x, 200, "{\"count\":" + t.size() + ",\"max_model_len\":" + context + ",\"tokens\":[]}");
    }

    private synchronized void reset(HttpExchange x) throws IOException {
        resets.incrementAndGet();
        if (honestReset) {
            gpu.clear();
            if (!storageSurvivesFlush) storage.clear();
        }
        reply(x, 200, kind == Kind.VLLM ? "" : "{\"success\":true}");
    }

    /** The longest prefix of {@code t} whose every {@code unit}-token piece {@code cache} holds (tokens). */
    private static int cached(Set<List<String>> cache, List<String> t, int unit) {
        int n = 0;
        for (int end = unit; end <= t.size(); end += unit) {
            if (!cache.contains(t.subList(0, end))) break;
            n = end;
        }
        return n;
    }

    private static void remember(Set<List<String>> cache, List<String> t, int unit) {
        for (int end = unit; end <= t.size(); end += unit) cache.add(List.copyOf(t.subList(0, end)));
    }

    /** Serves one prompt from the caches: the cached tokens every tier together, the counters updated. */
    private synchronized int serve(List<String> t) {
        int local = cached(gpu, t, block), ext = 0;
        if (lmcacheChunk > 0) {
            int lm = cached(connector, t, lmcacheChunk);
            ext = Math.max(0, lm - local);
            lmRequested += t.size();
            lmHit += ext;
            lmLookup += t.size();
            lmLookupHit += lm;
            remember(connector, t, lmcacheChunk);
        }
        if (sglang() && storageSurvivesFlush) {
            int s = cached(storage, t, block);
            if (s > local) {
                stored += s - local;
                ext = s - local;
            }
            remember(storage, t, block);
        }
        if (gpuBlocks > 0 && gpu.size() + t.size() / block > gpuBlocks) gpu.clear();
        remember(gpu, t, block);
        prompt += t.size();
        hits += local;
        extQueries += t.size();
        extHits += kind == Kind.VLLM ? ext : 0;
        if (sglang() && !storageSurvivesFlush) {
            long d = Math.round(local * deviceShare), h = Math.round(local * hostShare);
            device += d;
            host += h;
            stored += local - d - h;
        } else if (sglang()) device += local;
        return local + ext;
    }

    private synchronized void restartIfDue() {
        if (restartAfter > 0 && completions.incrementAndGet() == restartAfter)
            prompt = hits =
                    extQueries = extHits = device = host = stored = lmRequested = lmHit = lmLookup = lmLookupHit = 0;
    }

    private void complete(HttpExchange x) throws IOException {
        JsonNode b = JSON.readTree(x.getRequestBody());
        List<String> t = tokens(b.path("prompt").asText(""));
        int want = Math.max(1, b.path("max_tokens").asInt(16));
        int cached = kind == Kind.NOTHING ? -1 : serve(t);
        if (b.has("stream")
                && !b.path("stream").asBoolean()) { // vLLM's JSON answer: no timings, usage with the cached tokens
            long nanos =
                    Math.round(((t.size() - Math.max(0, cached)) * prefillMsPerToken + want * decodeMsPerToken) * 1e6);
            try {
                Thread.sleep(java.time.Duration.ofNanos(nanos));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            String usage = "\"prompt_tokens\":" + t.size() + ",\"completion_tokens\":" + want + ",\"total_tokens\":"
                    + (t.size() + want)
                    + (cached >= 0 ? ",\"prompt_tokens_details\":{\"cached_tokens\":" + cached + "}" : "");
            reply(
                    x,
                    200,
                    "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"model\":\"standin\",\"choices\":[{\"index\":0,\"text\":\""
                            + " w".repeat(want) + "\",\"finish_reason\":\"length\"}],\"usage\":{" + usage + "}}");
            restartIfDue();
            return;
        }
        x.getResponseHeaders().set("Content-Type", "text/event-stream");
        x.sendResponseHeaders(200, 0);
        OutputStream out = x.getResponseBody();
        int sent = truncate ? want / 2 : want;
        for (int i = 0; i < sent; i++) {
            String fin = i == want - 1 ? "\"length\"" : "null";
            send(
                    out,
                    "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"model\":\"standin\",\"choices\":[{\"index\":0,\"text\":\" w\",\"finish_reason\":"
                            + fin + "}]}");
        }
        String usage = "\"prompt_tokens\":" + t.size() + ",\"completion_tokens\":" + sent + ",\"total_tokens\":"
                + (t.size() + sent);
        if (cached >= 0)
            usage += ",\"prompt_tokens_details\":{\"cached_tokens\":" + (cachedLie == 1 ? cached : cachedLie * t.size())
                    + "}";
        send(
                out,
                "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"model\":\"standin\",\"choices\":[],\"usage\":{"
                        + usage + "}}");
        send(out, "[DONE]");
        restartIfDue();
    }

    private static void send(OutputStream out, String data) throws IOException {
        out.write(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private synchronized String metrics() {
        StringBuilder sb = new StringBuilder();
        String l = "{engine=\"0\",model_name=\"standin\"}";
        switch (kind) {
            case VLLM -> {
                counter(
                        sb,
                        "vllm:prefix_cache_queries",
                        "Prefix cache queries, in terms of number of queried tokens.",
                        l,
                        prompt);
                counter(
                        sb,
                        "vllm:prefix_cache_hits",
                        "Prefix cache hits, in terms of number of cached tokens.",
                        l,
                        hits);
                if (lmcacheChunk > 0) {
                    counter(
                            sb,
                            "vllm:external_prefix_cache_queries",
                            "External prefix cache queries from KV connector cross-instance cache"
                                    + " sharing, in terms of number of queried tokens.",
                            l,
                            extQueries);
                    counter(
                            sb,
                            "vllm:external_prefix_cache_hits",
                            "External prefix cache hits from KV connector cross-instance cache"
                                    + " sharing, in terms of number of cached tokens.",
                            l,
                            extHits);
                    String w = "{model_name=\"standin\",worker_id=\"0\"}";
                    counter(
                            sb,
                            "lmcache:num_requested_tokens",
                            "Total number of tokens requested for retrieval",
                            w,
                            lmRequested);
                    counter(sb, "lmcache:num_hit_tokens", "Total number of cache hit tokens from retrieval", w, lmHit);
                    counter(
                            sb,
                            "lmcache:num_lookup_tokens",
                            "Total number of tokens requested in lookup operations",
                            w,
                            lmLookup);
                    counter(
                            sb,
                            "lmcache:num_lookup_hits",
                            "Total number of tokens hit in lookup operations",
                            w,
                            lmLookupHit);
                }
            }
            case VLLM_PRE_092 -> {
                counter(
                        sb,
                        "vllm:gpu_prefix_cache_queries",
                        "GPU prefix cache queries, in terms of number of queried tokens.",
                        l,
                        prompt);
                sb.append("vllm:gpu_prefix_cache_queries_created").append(l).append(" 1.7537953269352946e+09\n");
                counter(
                        sb,
                        "vllm:gpu_prefix_cache_hits",
                        "GPU prefix cache hits, in terms of number of cached tokens.",
                        l,
                        hits);
                sb.append("vllm:gpu_prefix_cache_hits_created").append(l).append(" 1.7537953269353123e+09\n");
            }
            case SGLANG, SGLANG_UNSPLIT -> {
                counter(
                        sb,
                        "sglang:prompt_tokens",
                        "Number of prefill tokens processed.",
                        "{model_name=\"standin\"}",
                        prompt);
                sb.append(
                        "# HELP sglang:cached_tokens_total Number of cached prompt tokens.\n# TYPE sglang:cached_tokens_total counter\n");
                if (kind == Kind.SGLANG_UNSPLIT)
                    sb.append("sglang:cached_tokens_total{model_name=\"standin\"} ")
                            .append(num(device + host + stored))
                            .append('\n');
                else {
                    source(sb, "device", device);
                    source(sb, "host", host);
                    source(sb, "storage_MooncakeStore", stored);
                }
            }
            default -> {}
        }
        return sb.toString();
    }

    /** A labelled child appears at its first increment, as prometheus_client creates it. */
    private static void source(StringBuilder sb, String source, double v) {
        if (v > 0)
            sb.append("sglang:cached_tokens_total{cache_source=\"")
                    .append(source)
                    .append("\",model_name=\"standin\"} ")
                    .append(num(v))
                    .append('\n');
    }

    private static void counter(StringBuilder sb, String name, String help, String labels, double v) {
        sb.append("# HELP ").append(name).append("_total ").append(help).append('\n');
        sb.append("# TYPE ").append(name).append("_total counter\n");
        sb.append(name)
                .append("_total")
                .append(labels)
                .append(' ')
                .append(num(v))
                .append('\n');
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    @Override
    public void close() {
        http.stop(0);
    }
}
