package dev.kvlab.harness.metrics;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.influxdb.dto.Point;

/**
 * Summary points to an InfluxDB 2.x bucket. influxdb-java speaks only the 1.x API (user/password), so the point
 * (line protocol from influxdb-java's {@link Point}) goes to {@code POST /api/v2/write?org=&bucket=&precision=ms}
 * with the JDK's {@link HttpClient} and an {@code Authorization: Token …} header. The token is sent in that
 * header only; error messages carry the status and InfluxDB's answer, never the request.
 */
final class InfluxV2SummaryWriter implements SummaryWriter {

    private final InfluxTarget.V2 target;
    private final HttpClient http;
    private final URI writeUri;

    InfluxV2SummaryWriter(InfluxTarget.V2 target) {
        this.target = target;
        this.http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        String base = target.url().toString().replaceAll("/+$", "");
        this.writeUri = URI.create(
                base + "/api/v2/write?org=" + enc(target.org()) + "&bucket=" + enc(target.bucket()) + "&precision=ms");
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Override
    public void write(Point point) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(writeUri)
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Token " + target.token())
                .header("Content-Type", "text/plain; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(
                        point.lineProtocol(TimeUnit.MILLISECONDS), StandardCharsets.UTF_8))
                .build();
        HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            String body = r.body() == null ? "" : r.body().strip();
            throw new IOException(
                    "HTTP " + r.statusCode() + " " + (body.length() > 200 ? body.substring(0, 200) : body));
        }
    }

    @Override
    public void close() {
        http.close();
    }
}
