package dev.kvlab.store.internal.server;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Serves a {@link PrometheusMeterRegistry} at {@code GET /metrics} (Prometheus text format) over the JDK's HTTP server.
 * With a token, a scrape must send {@code Authorization: Bearer TOKEN} (Prometheus: {@code authorization.credentials});
 * others get 401. {@link #check} is the bind rule the commands apply: a non-loopback endpoint needs a token or an
 * explicit "public".
 */
public final class MetricsHttpServer implements AutoCloseable {

    private final HttpServer http;

    public MetricsHttpServer(PrometheusMeterRegistry registry, String host, int port) throws IOException {
        this(registry, host, port, null);
    }

    /**
     * Null when serving metrics at {@code host} with this {@code token} (may be null) is allowed, else why not: a
     * non-loopback bind without a token needs {@code isPublic} (an explicit choice), like the store's own ports.
     */
    public static String check(String host, String token, boolean isPublic) {
        if (token != null || isPublic || Loopback.only(host)) return null;
        return "--metrics " + host + " is not a loopback address: the metrics endpoint then needs the auth token "
                + "(KVLAB_STORE_TOKEN or --token-file; scrapers send it as a bearer token), or --metrics-public to serve it to anyone";
    }

    public MetricsHttpServer(PrometheusMeterRegistry registry, String host, int port, String token) throws IOException {
        byte[] want = token == null ? null : sha256("Bearer " + token);
        http = HttpServer.create(new InetSocketAddress(host, port), 16);
        http.createContext("/metrics", ex -> {
            try (ex) {
                if (!"GET".equals(ex.getRequestMethod())) {
                    ex.sendResponseHeaders(405, -1);
                    return;
                }
                if (want != null) {
                    String auth = ex.getRequestHeaders().getFirst("Authorization");
                    if (auth == null || !java.security.MessageDigest.isEqual(want, sha256(auth))) {
                        ex.getResponseHeaders().set("WWW-Authenticate", "Bearer");
                        ex.sendResponseHeaders(401, -1);
                        return;
                    }
                }
                byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                ex.sendResponseHeaders(200, body.length);
                try (OutputStream o = ex.getResponseBody()) {
                    o.write(body);
                }
            }
        });
        http.start();
    }

    private static byte[] sha256(String s) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public int port() {
        return http.getAddress().getPort();
    }

    @Override
    public void close() {
        http.stop(0);
    }
}
