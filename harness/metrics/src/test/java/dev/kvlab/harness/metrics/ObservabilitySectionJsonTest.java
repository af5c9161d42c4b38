package dev.kvlab.harness.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.SummaryRow;
import dev.kvlab.harness.bundle.BundleJson;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.influxdb.dto.Point;
import org.junit.jupiter.api.Test;

/** The manifest's {@code observability} section as the bundle writes it: keys, order, types, optional keys, byte for byte. */
class ObservabilitySectionJsonTest {

    private static final PrintStream QUIET = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    private static String json(Object section) throws Exception {
        return BundleJson.mapper().writeValueAsString(BundleJson.mapper().valueToTree(section));
    }

    private static InfluxPublisher publisher(InfluxTarget t, PushHealth h, SummaryWriter w, Duration drain) {
        return new InfluxPublisher(
                t.describe(),
                SimpleMeterRegistry::new,
                w,
                h,
                Clock.systemUTC(),
                System::nanoTime,
                Duration.ofSeconds(1),
                drain,
                QUIET);
    }

    private static SummaryWriter writer(CountDownLatch release) {
        return new SummaryWriter() {
            @Override
            public void write(Point point) throws Exception {
                release.await();
            }

            @Override
            public void close() {}
        };
    }

    @Test
    void aV1TargetWithNothingDropped() throws Exception {
        InfluxTarget t = new InfluxTarget.V1(URI.create("http://127.0.0.1:8086"), "kvlab", Duration.ofMillis(200));
        PushHealth h = new PushHealth("http://127.0.0.1:8086", QUIET);
        h.pushed();
        try (InfluxPublisher p = publisher(t, h, writer(new CountDownLatch(0)), Duration.ofSeconds(5))) {
            assertThat(json(p.manifestSection())).isEqualTo("""
                            {
                              "influx" : {
                                "url" : "http://127.0.0.1:8086",
                                "api" : "1.x",
                                "db" : "kvlab",
                                "interval_ms" : 200
                              },
                              "pushes" : 1,
                              "dropped_pushes" : 0,
                              "summary_points" : 0,
                              "dropped_summary_points" : 0
                            }""");
        }
    }

    @Test
    void aV2TargetWithAnErrorAndPointsStillQueued() throws Exception {
        InfluxTarget t = new InfluxTarget.V2(
                URI.create("https://influx:8086"), "org", "bucket", "TOKEN_VAR", "secret", Duration.ofSeconds(2));
        PushHealth h = new PushHealth("https://influx:8086", QUIET);
        h.pushDropped("boom");
        CountDownLatch release = new CountDownLatch(1);
        try (InfluxPublisher p = publisher(t, h, writer(release), Duration.ofMillis(50))) {
            CellTags tags = CellTags.of("run", "c0", 0, "sim", Map.of());
            p.cellStarted(tags);
            p.cellFinished(tags, SummaryRow.builder().put("x", 1L).build());
            p.cellStarted(CellTags.of("run", "c1", 0, "sim", Map.of()));
            p.cellFinished(
                    CellTags.of("run", "c1", 0, "sim", Map.of()),
                    SummaryRow.builder().put("x", 2L).build());
            String s = json(p.manifestSection());
            release.countDown();
            assertThat(s.replaceAll("\"pending\" : [0-9]+", "\"pending\" : N")).isEqualTo("""
                            {
                              "influx" : {
                                "url" : "https://influx:8086",
                                "api" : "2.x",
                                "org" : "org",
                                "bucket" : "bucket",
                                "token_env" : "TOKEN_VAR",
                                "interval_ms" : 2000
                              },
                              "pushes" : 1,
                              "dropped_pushes" : 1,
                              "summary_points" : 0,
                              "dropped_summary_points" : 0,
                              "first_error" : "boom",
                              "pending" : N
                            }""");
            assertThat(s).doesNotContain("secret");
        }
    }
}
