package dev.kvlab.store.internal.server;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** Serves a {@link PrometheusMeterRegistry} at {@code GET /metrics} (Prometheus text format) over the JDK's HTTP server. */
public final class MetricsHttpServer implements AutoCloseable {

    private final HttpServer http;

    public MetricsHttpServer(PrometheusMeterRegistry registry, String host, int port) throws IOException {
        http = HttpServer.create(new InetSocketAddress(host, port), 16);
        http.createContext("/metrics", ex -> {
            try (ex) {
                if (!"GET".equals(ex.getRequestMethod())) {
                    ex.sendResponseHeaders(405, -1);
                    return;
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

    public int port() {
        return http.getAddress().getPort();
    }

    @Override
    public void close() {
        http.stop(0);
    }
}
