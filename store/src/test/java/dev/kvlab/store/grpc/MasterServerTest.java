package dev.kvlab.store.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.rpc.MasterUnavailableException;
import dev.kvlab.store.internal.server.MasterService;
import dev.kvlab.store.internal.server.MetricsHttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MasterServerTest {

    @Test
    void aNonLoopbackBindNeedsAToken() {
        MasterService s = new MasterService(
                new StoreMaster(MasterConfig.defaults(), Clock.systemUTC()),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        assertThatThrownBy(() -> MasterServer.start(s, "0.0.0.0", 0, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token");
    }

    @Test
    void aTokenIsCheckedOnEveryCall() throws Exception {
        MasterService s = new MasterService(
                new StoreMaster(MasterConfig.defaults(), Clock.systemUTC()),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        try (MasterServer server = MasterServer.start(s, "127.0.0.1", 0, "s3cret-token");
                GrpcMasterChannel good =
                        new GrpcMasterChannel("127.0.0.1", server.port(), Duration.ofSeconds(5), "s3cret-token");
                GrpcMasterChannel bad =
                        new GrpcMasterChannel("127.0.0.1", server.port(), Duration.ofSeconds(5), "s3cret-tokem");
                GrpcMasterChannel none =
                        new GrpcMasterChannel("127.0.0.1", server.port(), Duration.ofSeconds(5), null)) {
            assertThat(good.ping("c1")).isFalse();
            assertThat(good.ping("c1")).isTrue();
            assertThatThrownBy(() -> bad.ping("c1")).isInstanceOf(SecurityException.class);
            assertThatThrownBy(() -> none.exists("t", List.of("k"))).isInstanceOf(SecurityException.class);
        }
    }

    @Test
    void badInputAndOversizedMessagesAreRefusedNotServed() throws Exception {
        MasterService s = new MasterService(
                new StoreMaster(MasterConfig.defaults(), Clock.systemUTC()),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        try (MasterServer server = MasterServer.start(s, "127.0.0.1", 0, null);
                GrpcMasterChannel ch = new GrpcMasterChannel("127.0.0.1", server.port(), Duration.ofSeconds(5), null)) {
            assertThatThrownBy(() -> ch.exists("bad/tenant", List.of("k")))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> ch.exists("t", List.of("has space"))).isInstanceOf(IllegalArgumentException.class);
            List<String> many = new ArrayList<>();
            for (int i = 0; i < 5000; i++) many.add("k" + i);
            assertThatThrownBy(() -> ch.exists("t", many))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("4096");
            List<String> huge = new ArrayList<>();
            for (int i = 0; i < 4000; i++) huge.add("k".repeat(500) + i); // ~2 MB of keys fits; 4 x that does not
            huge.addAll(huge);
            huge.addAll(huge);
            assertThatThrownBy(() -> ch.putStart(
                            "t", huge, new long[huge.size()], new int[huge.size()], ReplicateConfig.DEFAULT))
                    .isInstanceOf(MasterUnavailableException.class)
                    .hasMessageContaining("RESOURCE_EXHAUSTED");
            assertThat(ch.ping("still-serving")).isFalse();
        }
    }

    @Test
    void metricsAreServedInPrometheusFormat() throws Exception {
        PrometheusMeterRegistry reg = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        StoreMaster m = new StoreMaster(MasterConfig.defaults(), Clock.systemUTC());
        MasterService s = new MasterService(m, reg);
        s.mount("n1", "seg", 1 << 20, "");
        s.putStart("t", List.of("k"), new long[] {1000}, new int[] {0}, ReplicateConfig.DEFAULT);
        try (MetricsHttpServer http = new MetricsHttpServer(reg, "127.0.0.1", 0)) {
            HttpResponse<String> r = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body())
                    .contains("kvlab_store_rpc_total{rpc=\"put_start\"} 1.0")
                    .contains("kvlab_store_bytes_used 1024.0")
                    .contains("kvlab_store_capacity_bytes 1048576.0")
                    .contains("kvlab_store_objects 0.0")
                    .contains("kvlab_store_evictions_total")
                    .contains("kvlab_store_leases_active");
        }
    }

    /** Issue 14: a non-loopback metrics bind needs the token (scrapers send it as a bearer token) or an explicit public choice. */
    @Test
    void aMetricsEndpointOffLoopbackNeedsATokenOrPublic() throws Exception {
        assertThat(MetricsHttpServer.check("0.0.0.0", null, false))
                .contains("not a loopback address", "--metrics-public");
        assertThat(MetricsHttpServer.check("0.0.0.0", "t0ken-value", false)).isNull();
        assertThat(MetricsHttpServer.check("0.0.0.0", null, true)).isNull();
        assertThat(MetricsHttpServer.check("127.0.0.1", null, false)).isNull();
        PrometheusMeterRegistry reg = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (MetricsHttpServer http = new MetricsHttpServer(reg, "127.0.0.1", 0, "t0ken-value")) {
            URI u = URI.create("http://127.0.0.1:" + http.port() + "/metrics");
            HttpClient c = HttpClient.newHttpClient();
            assertThat(c.send(HttpRequest.newBuilder(u).build(), HttpResponse.BodyHandlers.ofString())
                            .statusCode())
                    .isEqualTo(401);
            assertThat(c.send(
                                    HttpRequest.newBuilder(u)
                                            .header("Authorization", "Bearer wrong")
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .statusCode())
                    .isEqualTo(401);
            assertThat(c.send(
                                    HttpRequest.newBuilder(u)
                                            .header("Authorization", "Bearer t0ken-value")
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .statusCode())
                    .isEqualTo(200);
        }
    }

    /** Issue 14: the corrupt-replica report crosses gRPC, drops the replica, and the store's metrics count it. */
    @Test
    void aCorruptReplicaReportOverGrpcDropsItAndIsCounted() throws Exception {
        PrometheusMeterRegistry reg = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        StoreMaster m = new StoreMaster(MasterConfig.defaults(), Clock.systemUTC());
        MasterService s = new MasterService(m, reg);
        s.mount("n1", "seg", 1 << 20, "");
        var started = s.putStart("t", List.of("k"), new long[] {1000}, new int[] {0}, ReplicateConfig.DEFAULT);
        s.putEnd("t", List.of("k"), new long[] {started.get(0).putId()});
        long offset = started.get(0).replicas().get(0).offset();
        try (MasterServer server = MasterServer.start(s, "127.0.0.1", 0, null);
                GrpcMasterChannel c = new GrpcMasterChannel("127.0.0.1", server.port(), Duration.ofSeconds(5), null)) {
            assertThat(c.reportCorrupt("t", "k", "other-seg", offset)).isFalse();
            assertThat(c.reportCorrupt("t", "k", "seg", offset)).isTrue();
            assertThat(c.exists("t", List.of("k"))[0]).isFalse();
        }
        assertThat(reg.scrape())
                .contains("kvlab_store_replicas_corrupt_dropped_total 1.0")
                .contains("kvlab_store_rpc_total{rpc=\"report_corrupt\"} 2.0");
    }
}
