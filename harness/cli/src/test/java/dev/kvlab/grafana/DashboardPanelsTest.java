package dev.kvlab.grafana;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.cli.Kvlab;
import dev.kvlab.harness.metrics.InfluxPublisher;
import dev.kvlab.harness.metrics.InfluxTarget;
import dev.kvlab.harness.metrics.Influxd;
import dev.kvlab.harness.metrics.SimRuns;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The smoke matrix run in sim with {@code --influx} into a real InfluxDB 1.x (and, in-process, a few sim cells
 * through the publisher), then every panel query of every dashboard under {@code grafana/},
 * run as Grafana runs it over the last 6 hours (the Java port of the acceptance check's grafana_check.py): each
 * must return data.
 */
class DashboardPanelsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Runs the CLI in-process with System.err captured. */
    private static int kvlab(StringBuilder err, String... args) {
        PrintStream old = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            picocli.CommandLine cl = Kvlab.commandLine();
            cl.setOut(new java.io.PrintWriter(new java.io.StringWriter(), true));
            return cl.execute(args);
        } finally {
            System.setErr(old);
            err.append(buf.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void everyPanelQueryReturnsDataAfterTheSmokeMatrixRanWithInflux(@TempDir Path tmp) throws Exception {
        Path grafana = PanelQueries.grafanaDir();
        Path smoke = grafana.getParent().resolve("ablations/smoke.yaml");
        assertThat(smoke).as("the smoke matrix").isRegularFile();
        List<PanelQueries.Target> targets = PanelQueries.targets(grafana);
        try (Influxd influx = Influxd.start()) {
            StringBuilder err = new StringBuilder();
            int code = kvlab(
                    err,
                    "run",
                    smoke.toString(),
                    "--mode",
                    "sim",
                    "--out",
                    tmp.resolve("runs").toString(),
                    "--influx",
                    influx.url(),
                    "--influx-db",
                    "kvlab",
                    "--influx-interval",
                    "200ms");
            assertThat(code).as(err.toString()).isZero();
            assertThat(err.toString())
                    .doesNotContain("not taking pushes")
                    .containsPattern("summary points written; dropped 0 ");
            assertThat(empty(influx, targets)).as("panels without data").isEmpty();
        }
    }

    /** The targets whose query, prepared as Grafana would, returns an error or no series. */
    static List<String> empty(Influxd influx, List<PanelQueries.Target> targets) throws Exception {
        List<String> empty = new ArrayList<>();
        for (PanelQueries.Target t : targets) {
            assertThat(t.query())
                    .as(t.dashboard() + " '" + t.panel() + "' has a raw InfluxQL query")
                    .isNotBlank();
            assertThat(t.json().path("rawQuery").asBoolean())
                    .as(t.dashboard() + " '" + t.panel() + "' rawQuery")
                    .isTrue();
            JsonNode res = JSON.readTree(influx.query("kvlab", PanelQueries.prepare(t.query())))
                    .path("results")
                    .path(0);
            if (res.has("error") || res.path("series").isEmpty())
                empty.add(t.dashboard() + ": '" + t.panel() + "': "
                        + res.path("error").asText("no data") + " — " + PanelQueries.prepare(t.query()));
        }
        return empty;
    }

    @Test
    void everyPanelQueryOfEveryDashboardReturnsDataAfterASimRun() throws Exception {
        Path grafana = PanelQueries.grafanaDir();
        List<PanelQueries.Target> targets = PanelQueries.targets(grafana);
        Set<String> dashboards = new TreeSet<>();
        targets.forEach(t -> dashboards.add(t.dashboard()));
        assertThat(dashboards).contains("ablation-overview.json", "store.json", "recompute-vs-fetch.json");
        try (Influxd influx = Influxd.start()) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            try (InfluxPublisher pub = InfluxPublisher.open(
                    new InfluxTarget.V1(URI.create(influx.url()), "kvlab", Duration.ofMillis(200)),
                    new PrintStream(err, true, StandardCharsets.UTF_8))) {
                SimRuns.run("20261129-000000-paneltest-abcdef", pub);
            }
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .doesNotContain("not taking pushes")
                    .contains("dropped 0");
            assertThat(empty(influx, targets)).as("panels without data").isEmpty();
            assertThat(targets.size()).isGreaterThanOrEqualTo(30);
        }
    }
}
