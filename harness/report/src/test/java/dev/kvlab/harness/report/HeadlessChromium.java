package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Debian's headless Chromium driven over the DevTools protocol (JDK HttpClient + WebSocket): loads a page, collects
 * every console message, exception, log entry and network request, evaluates expressions and takes screenshots.
 * Listens on loopback only; the browser process is killed on close.
 */
final class HeadlessChromium implements AutoCloseable {

    static final Path DEBIAN = Path.of("/usr/bin/chromium");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final WebSocket ws;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    final List<JsonNode> events = new CopyOnWriteArrayList<>();
    private final List<String> stderr = Collections.synchronizedList(new ArrayList<>());

    /** The browser binary: {@code KVLAB_CHROMIUM}, else Debian's; null when neither exists. */
    static Path binary() {
        String env = System.getenv("KVLAB_CHROMIUM");
        if (env != null && Files.isExecutable(Path.of(env))) return Path.of(env);
        return Files.isExecutable(DEBIAN) ? DEBIAN : null;
    }

    HeadlessChromium(Path binary, Path userDataDir, int width, int height) throws Exception {
        List<String> cmd = List.of(
                binary.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--hide-scrollbars",
                "--user-data-dir=" + userDataDir,
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--window-size=" + width + "," + height,
                "about:blank");
        process = new ProcessBuilder(cmd)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        CompletableFuture<String> endpoint = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("chromium-stderr").start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    stderr.add(line);
                    int i = line.indexOf("DevTools listening on ");
                    if (i >= 0)
                        endpoint.complete(line.substring(i + "DevTools listening on ".length())
                                .strip());
                }
                endpoint.completeExceptionally(
                        new IOException("chromium exited before listening: " + String.join("\n", stderr)));
            } catch (IOException e) {
                endpoint.completeExceptionally(e);
            }
        });
        try {
            URI browser = URI.create(endpoint.get(60, TimeUnit.SECONDS));
            HttpClient http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();
            URI list = URI.create("http://" + browser.getHost() + ":" + browser.getPort() + "/json/list");
            String page = null;
            for (int attempt = 0; attempt < 50 && page == null; attempt++) {
                JsonNode targets = JSON.readTree(
                        http.send(HttpRequest.newBuilder(list).GET().build(), HttpResponse.BodyHandlers.ofString())
                                .body());
                for (JsonNode t : targets)
                    if ("page".equals(t.path("type").asText()))
                        page = t.path("webSocketDebuggerUrl").asText();
                if (page == null) Thread.sleep(100);
            }
            if (page == null) throw new IOException("chromium shows no page target");
            ws = http.newWebSocketBuilder()
                    .buildAsync(URI.create(page), new Listener())
                    .get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            process.destroyForcibly();
            throw e;
        }
    }

    /** Sends a DevTools command and waits for its result. */
    JsonNode call(String method, Map<String, ?> params) throws Exception {
        int id = ids.incrementAndGet();
        ObjectNode msg = JSON.createObjectNode();
        msg.put("id", id);
        msg.put("method", method);
        msg.set("params", JSON.valueToTree(params));
        CompletableFuture<JsonNode> f = new CompletableFuture<>();
        pending.put(id, f);
        ws.sendText(JSON.writeValueAsString(msg), true).get(20, TimeUnit.SECONDS);
        JsonNode r = f.get(60, TimeUnit.SECONDS);
        if (r.has("error")) throw new IOException(method + ": " + r.get("error"));
        return r.path("result");
    }

    /** Waits until an event named {@code method} has arrived (or the timeout passes). */
    boolean awaitEvent(String method, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            for (JsonNode e : events) if (method.equals(e.path("method").asText())) return true;
            Thread.sleep(20);
        }
        return false;
    }

    /** Evaluates a JavaScript expression in the page and returns its value. */
    JsonNode eval(String expression) throws Exception {
        JsonNode r = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true));
        if (r.has("exceptionDetails")) throw new IOException("page script failed: " + r.get("exceptionDetails"));
        return r.path("result").path("value");
    }

    /** Console errors and warnings, uncaught exceptions, and error-level log entries (failed loads, CSP), as text. */
    List<String> problems() {
        List<String> out = new ArrayList<>();
        for (JsonNode e : events) {
            String m = e.path("method").asText();
            JsonNode p = e.path("params");
            switch (m) {
                case "Runtime.exceptionThrown" -> out.add("exception: " + p.path("exceptionDetails"));
                case "Runtime.consoleAPICalled" -> {
                    String type = p.path("type").asText();
                    if (type.equals("error") || type.equals("warning") || type.equals("assert"))
                        out.add("console." + type + ": " + p.path("args"));
                }
                case "Log.entryAdded" -> {
                    String level = p.path("entry").path("level").asText();
                    if (level.equals("error") || level.equals("warning"))
                        out.add("log " + level + ": "
                                + p.path("entry").path("text").asText() + " "
                                + p.path("entry").path("url").asText());
                }
                default -> {}
            }
        }
        return out;
    }

    /** URLs the page requested. */
    List<String> requests() {
        List<String> out = new ArrayList<>();
        for (JsonNode e : events)
            if ("Network.requestWillBeSent".equals(e.path("method").asText()))
                out.add(e.path("params").path("request").path("url").asText());
        return out;
    }

    @Override
    public void close() {
        try {
            if (ws != null) {
                ObjectNode msg =
                        JSON.createObjectNode().put("id", ids.incrementAndGet()).put("method", "Browser.close");
                ws.sendText(JSON.writeValueAsString(msg), true).get(5, TimeUnit.SECONDS);
            }
        } catch (Exception ignored) {
            // killed below
        }
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder buf = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            buf.append(data);
            if (last) {
                try {
                    JsonNode m = JSON.readTree(buf.toString());
                    if (m.has("id")) {
                        CompletableFuture<JsonNode> f =
                                pending.remove(m.get("id").asInt());
                        if (f != null) f.complete(m);
                    } else events.add(m);
                } catch (IOException e) {
                    events.add(JSON.createObjectNode()
                            .put("method", "kvlab.badMessage")
                            .put("text", e.getMessage()));
                }
                buf.setLength(0);
            }
            webSocket.request(1);
            return null;
        }
    }
}
