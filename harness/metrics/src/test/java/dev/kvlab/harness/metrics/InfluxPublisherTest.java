package dev.kvlab.harness.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.SummaryRow;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The publisher against a real InfluxDB 1.x ({@code influxd} on loopback), and against one that is down. */
class InfluxPublisherTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** column → value of the single series {@code q} returns. */
    private static Map<String, JsonNode> row(Influxd influx, String q) throws Exception {
        JsonNode s =
                JSON.readTree(influx.query("kvlab", q)).path("results").path(0).path("series");
        assertThat(s.size()).as(q).isEqualTo(1);
        JsonNode cols = s.get(0).get("columns"), vals = s.get(0).get("values");
        assertThat(vals.size()).as(q).isEqualTo(1);
        Map<String, JsonNode> m = new LinkedHashMap<>();
        for (int i = 0; i < cols.size(); i++)
            m.put(cols.get(i).asText(), vals.get(0).get(i));
        return m;
    }

    @Test
    void summaryPointsCarryTheExactRowAndLivePointsTheWallClock() throws Exception {
        try (Influxd influx = Influxd.start()) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            long t0 = System.currentTimeMillis();
            List<SimRuns.Ran> ran;
            InfluxPublisher pub = InfluxPublisher.open(
                    new InfluxTarget.V1(URI.create(influx.url()), "kvlab", Duration.ofMillis(200)),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            try (pub) {
                ran = SimRuns.run("20261129-000000-pubtest-000001", pub);
            }
            long t1 = System.currentTimeMillis();
            assertThat(pub.health().droppedPushes()).isZero();
            assertThat(pub.health().droppedPoints()).isZero();
            assertThat(pub.health().points()).isEqualTo(3);
            assertThat(pub.health().pushes()).isGreaterThanOrEqualTo(3); // at least the final push of every cell
            ObservabilitySection section = pub.manifestSection();
            assertThat(section.counts().droppedPushes()).isZero();
            assertThat(section.influx()).isNotNull();
            for (SimRuns.Ran r : ran) {
                String cell = r.tags().get("cell");
                Map<String, JsonNode> p = row(
                        influx, "SELECT * FROM \"" + SummaryPoint.MEASUREMENT + "\" WHERE \"cell\" = '" + cell + "'");
                assertThat(p.get("time").asLong()).isBetween(t0, t1);
                assertThat(p.get("run").asText()).isEqualTo("20261129-000000-pubtest-000001");
                assertThat(p.get("replicate").asText()).isEqualTo("0");
                CellResult res = r.result();
                int numbers = 0;
                SummaryRow summary = res.summary().columns();
                for (String key : summary.names()) {
                    JsonNode v = p.get(key);
                    Object want = summary.get(key);
                    if (want instanceof Double d && !Double.isFinite(d)) {
                        assertThat(v == null || v.isNull())
                                .as(key + " (NaN is not stored)")
                                .isTrue();
                    } else if (want instanceof Double d) {
                        assertThat(v.doubleValue()).as(cell + " " + key).isEqualTo(d); // bit-exact, not approximately
                        numbers++;
                    } else if (want instanceof Long || want instanceof Integer) {
                        assertThat(v.asLong()).as(cell + " " + key).isEqualTo(((Number) want).longValue());
                        numbers++;
                    } else {
                        assertThat(v.asText()).as(cell + " " + key).isEqualTo(String.valueOf(want));
                    }
                }
                assertThat(numbers).isGreaterThan(20);
                // live: the final push carries the measured phase's final counters, at wall-clock time
                Map<String, JsonNode> done = row(
                        influx,
                        "SELECT last(\"value\") FROM \"kvlab_cell_requests\" WHERE \"cell\" = '" + cell
                                + "' AND \"state\" = 'completed' AND time > now() - 1h");
                assertThat(done.get("last").asLong()).isEqualTo(res.summary().get(Columns.COMPLETED));
                assertThat(done.get("time").asLong()).isBetween(t0, t1 + 1000);
                Map<String, JsonNode> bytes = row(
                        influx,
                        "SELECT last(\"value\") FROM \"kvlab_cell_fetched_bytes\" WHERE \"cell\" = '" + cell + "'");
                assertThat(bytes.get("last").asLong()).isEqualTo(res.summary().get(Columns.FETCHED_BYTES));
                Map<String, JsonNode> objects = row(
                        influx, "SELECT last(\"value\") FROM \"kvlab_store_objects\" WHERE \"cell\" = '" + cell + "'");
                assertThat(objects.get("last").asLong())
                        .isEqualTo(((Number) res.extras().get("store_objects")).longValue());
            }
            assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("not taking pushes");
        }
    }

    @Test
    void aDownInfluxDbDropsAndCountsPushesSaysSoOnceAndTheRunGoesOn() throws Exception {
        int port = Influxd.freePort(); // nothing listens there
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        InfluxPublisher pub = InfluxPublisher.open(
                new InfluxTarget.V1(URI.create("http://127.0.0.1:" + port), "kvlab", Duration.ofMillis(200)),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        List<SimRuns.Ran> ran;
        try (pub) {
            ran = SimRuns.run("20261129-000000-downtest-000002", pub);
        }
        assertThat(ran)
                .hasSize(3)
                .allSatisfy(r ->
                        assertThat(r.result().summary().get(Columns.COMPLETED)).isPositive());
        assertThat(pub.health().droppedPoints()).isEqualTo(3);
        assertThat(pub.health().droppedPushes())
                .isGreaterThanOrEqualTo(3)
                .isEqualTo(pub.health().pushes());
        ObservabilitySection section = pub.manifestSection();
        assertThat(section.counts().droppedPoints()).isEqualTo(3);
        assertThat(section.counts().firstError()).isNotNull();
        String text = err.toString(StandardCharsets.UTF_8);
        assertThat(text.split("not taking pushes", -1)).as("said once: " + text).hasSize(2);
        assertThat(text).contains("dropped " + pub.health().dropped());
    }
}
