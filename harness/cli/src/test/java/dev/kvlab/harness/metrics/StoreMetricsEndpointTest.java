package dev.kvlab.harness.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.ReplicateConfig;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The long-running store processes ({@code kvlab store master} and {@code kvlab store node}) each expose a
 * Prometheus endpoint on loopback; a real scrape (HTTP GET /metrics, Prometheus text format) shows the master's
 * objects, bytes used, leases and RPC counters moving as a client puts, and the node's segment.
 */
class StoreMetricsEndpointTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static String scrape(int port) throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
        return r.body();
    }

    /** The value of the first sample of {@code name} whose labels contain {@code labelPart}. */
    private static OptionalDouble sample(String text, String name, String labelPart) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? (\\S+)$")
                .matcher(text);
        while (m.find()) {
            String labels = m.group(1) == null ? "" : m.group(1);
            if (labels.contains(labelPart)) return OptionalDouble.of(Double.parseDouble(m.group(2)));
        }
        return OptionalDouble.empty();
    }

    private static int port(String line) {
        Matcher m = Pattern.compile("metrics at http://127\\.0\\.0\\.1:(\\d+)/metrics")
                .matcher(line);
        assertThat(m.find()).as(line).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private static boolean settled(String m) {
        return sample(m, "kvlab_store_objects", "").orElse(0) >= 5
                && sample(m, "kvlab_store_leases_granted_total", "").orElse(0) >= 1
                && sample(m, "kvlab_store_rpc_total", "rpc=\"put_start\"").orElse(0) >= 1
                && sample(m, "kvlab_store_rpc_total", "rpc=\"ping\"").orElse(0) >= 1;
    }

    @Test
    void masterAndNodeServePrometheusMetricsOnLoopback() throws Exception {
        int listen = Influxd.freePort();
        try (KvlabProcess master = new KvlabProcess(Map.of(), "store", "master", "--listen", "127.0.0.1:" + listen);
                KvlabProcess node = new KvlabProcess(
                        Map.of(),
                        "store",
                        "node",
                        "--master",
                        "127.0.0.1:" + listen,
                        "--segment",
                        "64MiB",
                        "--id",
                        "m-node1")) {
            int mPort = port(master.await("listening on"));
            int nPort = port(node.await("mounted"));

            String n = scrape(nPort);
            assertThat(sample(n, "kvlab_node_segment_bytes", "node=\"m-node1\""))
                    .hasValue(64.0 * 1024 * 1024);
            assertThat(sample(n, "kvlab_node_mounted", "node=\"m-node1\"")).hasValue(1.0);
            assertThat(sample(n, "jvm_memory_used_bytes", "")).isPresent();

            BackendOptions opts = BackendOptions.defaults().withTransport("tcp").withTimeout(Duration.ofSeconds(10));
            try (KvBackend b = KvBackends.discover().open("kvlab://127.0.0.1:" + listen, opts)) {
                int len = 64 * 1024;
                MemorySegment buf = b.allocateBuffer(len);
                for (int i = 0; i < 5; i++) {
                    KeyedPayload.fill("scrape/k" + i, buf, 0, len);
                    PutStatus st = b.put("scrape/k" + i, buf, ReplicateConfig.DEFAULT);
                    // on a loaded machine the first transfer to a node that has just mounted can time out: retry,
                    // bounded
                    for (int tries = 0; st != PutStatus.OK && tries < 5; tries++) {
                        Thread.sleep(500);
                        st = b.put("scrape/k" + i, buf, ReplicateConfig.DEFAULT);
                    }
                    assertThat(st).isEqualTo(PutStatus.OK);
                }
                assertThat(b.getInto("scrape/k0", buf).isHit()).isTrue();
            }
            // the master's stats snapshot is up to 500 ms old and the node pings once a second: scrape until the
            // counters have moved (bounded), then check the last scrape
            String m = scrape(mPort);
            for (long deadline = System.nanoTime() + 15_000_000_000L; System.nanoTime() < deadline && !settled(m); ) {
                Thread.sleep(200);
                m = scrape(mPort);
            }
            assertThat(sample(m, "kvlab_store_segments", "")).hasValue(1.0);
            assertThat(sample(m, "kvlab_store_capacity_bytes", "")).hasValue(64.0 * 1024 * 1024);
            assertThat(sample(m, "kvlab_store_objects", "")).hasValue(5.0);
            assertThat(sample(m, "kvlab_store_bytes_used", "").orElseThrow()).isGreaterThanOrEqualTo(5.0 * 64 * 1024);
            assertThat(sample(m, "kvlab_store_leases_granted_total", "").orElseThrow())
                    .isGreaterThanOrEqualTo(1.0);
            assertThat(sample(m, "kvlab_store_rpc_total", "rpc=\"put_start\"").orElseThrow())
                    .isGreaterThanOrEqualTo(1.0);
            assertThat(sample(m, "kvlab_store_rpc_total", "rpc=\"ping\"").orElseThrow())
                    .isGreaterThanOrEqualTo(1.0);
        }
    }
}
