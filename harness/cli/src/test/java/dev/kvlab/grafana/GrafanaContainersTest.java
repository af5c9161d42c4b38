package dev.kvlab.grafana;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.kvlab.harness.metrics.InfluxPublisher;
import dev.kvlab.harness.metrics.InfluxTarget;
import dev.kvlab.harness.metrics.SimRuns;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * InfluxDB 2 and Grafana in containers (the images compose.yaml names), Grafana provisioned from
 * {@code grafana/} exactly as compose.yaml mounts it; sim cells pushed to InfluxDB 2 through the 2.x API (token
 * auth); then, through Grafana's HTTP API, every dashboard loads and every panel query returns data. Needs a
 * Docker engine: skipped with the reason where there is none.
 */
@Tag("docker")
class GrafanaContainersTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern VAR = Pattern.compile("=~\\s*/\\^\\$(\\w+)\\$/");

    private static String image(JsonNode compose, String service) {
        return compose.path("services").path(service).path("image").asText();
    }

    @Test
    void provisionedDashboardsLoadAndEveryPanelReturnsDataThroughGrafana() throws Exception {
        boolean docker;
        try {
            docker = DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            docker = false;
        }
        Assumptions.assumeTrue(docker, "no Docker engine: the InfluxDB 2 + Grafana container test is skipped");
        Path g = PanelQueries.grafanaDir();
        JsonNode compose = new YAMLMapper().readTree(g.resolve("compose.yaml").toFile());
        String provider = new YAMLMapper()
                .readTree(g.resolve("provisioning/dashboards/kvlab.yaml").toFile())
                .path("providers")
                .get(0)
                .path("options")
                .path("path")
                .asText();
        String token = HexFormat.of().formatHex(java.security.SecureRandom.getSeed(16));
        try (Network net = Network.newNetwork();
                GenericContainer<?> influx = new GenericContainer<>(DockerImageName.parse(image(compose, "influxdb")))
                        .withNetwork(net)
                        .withNetworkAliases("influxdb")
                        .withExposedPorts(8086)
                        .withEnv("DOCKER_INFLUXDB_INIT_MODE", "setup")
                        .withEnv("DOCKER_INFLUXDB_INIT_USERNAME", "kvlab")
                        .withEnv("DOCKER_INFLUXDB_INIT_PASSWORD", "kvlab-test-only")
                        .withEnv("DOCKER_INFLUXDB_INIT_ORG", "kvlab")
                        .withEnv("DOCKER_INFLUXDB_INIT_BUCKET", "kvlab")
                        .withEnv("DOCKER_INFLUXDB_INIT_ADMIN_TOKEN", token)
                        .waitingFor(
                                Wait.forHttp("/health").forStatusCode(200).withStartupTimeout(Duration.ofMinutes(2)));
                GenericContainer<?> grafana = new GenericContainer<>(DockerImageName.parse(image(compose, "grafana")))
                        .withNetwork(net)
                        .withExposedPorts(3000)
                        .withEnv("KVLAB_INFLUX_URL", "http://influxdb:8086")
                        .withEnv("KVLAB_INFLUX_DB", "kvlab")
                        .withEnv("KVLAB_INFLUX_TOKEN", token)
                        .withEnv("GF_SECURITY_ADMIN_USER", "admin")
                        .withEnv("GF_SECURITY_ADMIN_PASSWORD", "admin")
                        .withCopyFileToContainer(
                                MountableFile.forHostPath(g.resolve("provisioning")), "/etc/grafana/provisioning")
                        .withCopyFileToContainer(MountableFile.forHostPath(g.resolve("dashboards")), provider)
                        .waitingFor(Wait.forHttp("/api/health")
                                .forStatusCode(200)
                                .withStartupTimeout(Duration.ofMinutes(2)))) {
            influx.start();
            grafana.start();
            String influxUrl = "http://" + influx.getHost() + ":" + influx.getMappedPort(8086);
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            InfluxPublisher pub = InfluxPublisher.open(
                    new InfluxTarget.V2(URI.create(influxUrl), "kvlab", "kvlab", "TEST", token, Duration.ofMillis(500)),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            try (pub) {
                SimRuns.run("20261129-000000-containers-abcdef", pub);
            }
            assertThat(pub.health().dropped())
                    .as(err.toString(StandardCharsets.UTF_8))
                    .isZero();

            HttpClient http = HttpClient.newHttpClient();
            String base = "http://" + grafana.getHost() + ":" + grafana.getMappedPort(3000);
            String auth = "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));
            JsonNode search = JSON.readTree(http.send(
                            HttpRequest.newBuilder(URI.create(base + "/api/search?type=dash-db&tag=kvlab"))
                                    .header("Authorization", auth)
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body());
            List<String> uids = new ArrayList<>();
            search.forEach(d -> uids.add(d.path("uid").asText()));
            assertThat(uids)
                    .containsExactlyInAnyOrder("kvlab-ablation-overview", "kvlab-store", "kvlab-recompute-vs-fetch");
            List<String> empty = new ArrayList<>();
            int queries = 0;
            for (String uid : uids) {
                JsonNode dash = JSON.readTree(http.send(
                                        HttpRequest.newBuilder(URI.create(base + "/api/dashboards/uid/" + uid))
                                                .header("Authorization", auth)
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString())
                                .body())
                        .path("dashboard");
                assertThat(dash.path("panels")).isNotEmpty();
                for (JsonNode p : dash.path("panels")) {
                    for (JsonNode t : p.path("targets")) {
                        ObjectNode q = JSON.createObjectNode();
                        q.put("refId", t.path("refId").asText());
                        q.set("datasource", t.path("datasource"));
                        q.put("rawQuery", true);
                        q.put("resultFormat", t.path("resultFormat").asText("time_series"));
                        // dashboard variables are the browser's to expand: every one at its "All" value
                        q.put("query", VAR.matcher(t.path("query").asText()).replaceAll("=~ /^.*\\$/"));
                        q.put("intervalMs", 10_000);
                        q.put("maxDataPoints", 500);
                        ObjectNode body = JSON.createObjectNode();
                        body.put("from", "now-6h");
                        body.put("to", "now");
                        ((ArrayNode) body.putArray("queries")).add(q);
                        HttpResponse<String> r = http.send(
                                HttpRequest.newBuilder(URI.create(base + "/api/ds/query"))
                                        .header("Authorization", auth)
                                        .header("Content-Type", "application/json")
                                        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                        queries++;
                        JsonNode res = JSON.readTree(r.body())
                                .path("results")
                                .path(t.path("refId").asText());
                        boolean data = false;
                        for (JsonNode frame : res.path("frames")) {
                            for (JsonNode col : frame.path("data").path("values")) if (!col.isEmpty()) data = true;
                        }
                        if (r.statusCode() != 200 || res.has("error") || !data)
                            empty.add(uid + " '" + p.path("title").asText() + "': HTTP " + r.statusCode() + " "
                                    + res.path("error").asText("no data"));
                    }
                }
            }
            assertThat(queries).isGreaterThanOrEqualTo(30);
            assertThat(empty).isEmpty();
        }
    }
}
