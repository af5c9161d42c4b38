package dev.kvlab.grafana;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The provisioning under {@code grafana/} is consistent: one InfluxDB datasource with the fixed uid every panel
 * uses, a file provider reading the directory compose.yaml mounts, current panel types, raw InfluxQL everywhere,
 * every dashboard variable filtering every query with {@code =~ /^$var$/}, and hit ratio beside goodput.
 */
class DashboardFilesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Set<String> PANEL_TYPES = Set.of("row", "timeseries", "barchart", "bargauge", "stat", "table");
    private static final String UID = "kvlab-influxdb";

    @Test
    void provisioningAndComposeAgree() throws Exception {
        Path g = PanelQueries.grafanaDir();
        JsonNode ds = YAML.readTree(
                g.resolve("provisioning/datasources/kvlab-influxdb.yaml").toFile());
        assertThat(ds.path("apiVersion").asInt()).isEqualTo(1);
        assertThat(ds.path("datasources")).hasSize(1);
        JsonNode d = ds.path("datasources").get(0);
        assertThat(d.path("type").asText()).isEqualTo("influxdb");
        assertThat(d.path("uid").asText()).isEqualTo(UID);
        assertThat(d.path("jsonData").path("version").asText()).isEqualTo("InfluxQL");
        assertThat(d.path("url").asText()).isEqualTo("${KVLAB_INFLUX_URL}");

        JsonNode prov =
                YAML.readTree(g.resolve("provisioning/dashboards/kvlab.yaml").toFile());
        JsonNode p = prov.path("providers").get(0);
        assertThat(p.path("type").asText()).isEqualTo("file");
        String path = p.path("options").path("path").asText();

        JsonNode compose = YAML.readTree(g.resolve("compose.yaml").toFile());
        JsonNode grafana = compose.path("services").path("grafana");
        List<String> volumes = new ArrayList<>();
        grafana.path("volumes").forEach(v -> volumes.add(v.asText()));
        assertThat(volumes).contains("./provisioning:/etc/grafana/provisioning:ro", "./dashboards:" + path + ":ro");
        assertThat(grafana.path("environment").path("KVLAB_INFLUX_URL").asText())
                .isEqualTo("http://influxdb:8086");
        assertThat(compose.path("services")
                        .path("influxdb")
                        .path("environment")
                        .path("DOCKER_INFLUXDB_INIT_BUCKET")
                        .asText())
                .isEqualTo(grafana.path("environment").path("KVLAB_INFLUX_DB").asText());
        for (JsonNode s : compose.path("services")) {
            s.path("ports")
                    .forEach(port -> assertThat(port.asText())
                            .as("published on loopback only")
                            .startsWith("127.0.0.1:"));
        }
        assertThat(Files.readString(g.resolve("compose.yaml"))).doesNotContainPattern("INIT_ADMIN_TOKEN: [A-Za-z0-9]");
    }

    /**
     * Every field a panel reads from {@code kvlab_summary} (the summary point of each cell) is a numeric result column of
     * the registry that the Influx push writes: a renamed or dropped column fails here, not as an empty panel.
     */
    @Test
    void everySummaryFieldAPanelReadsIsAPushedColumn() throws Exception {
        java.util.regex.Pattern field =
                java.util.regex.Pattern.compile("(?:mean|max|min|last|sum)\\(\"([a-z0-9_]+)\"\\)");
        Set<String> pushed = new java.util.HashSet<>();
        for (dev.kvlab.harness.api.Column<?> c : dev.kvlab.harness.api.Columns.SUMMARY)
            if (c.numeric()) pushed.add(c.name());
        List<String> read = new ArrayList<>(), unknown = new ArrayList<>();
        for (PanelQueries.Target t : PanelQueries.targets(PanelQueries.grafanaDir())) {
            if (!t.query().contains("\"kvlab_summary\"")) continue;
            java.util.regex.Matcher m = field.matcher(t.query());
            while (m.find()) {
                read.add(m.group(1));
                if (!pushed.contains(m.group(1))) unknown.add(t.dashboard() + " '" + t.panel() + "': " + m.group(1));
            }
        }
        assertThat(read).as("panels read summary columns").isNotEmpty();
        assertThat(unknown)
                .as("summary fields that are no numeric column of Columns.SUMMARY")
                .isEmpty();
    }

    @Test
    void everyPanelIsCurrentRawInfluxQlFilteredByEveryVariable() throws Exception {
        Path g = PanelQueries.grafanaDir();
        List<Path> files = PanelQueries.dashboards(g);
        assertThat(files).hasSize(3);
        Set<String> uids = new HashSet<>();
        for (Path f : files) {
            JsonNode d = JSON.readTree(f.toFile());
            assertThat(uids.add(d.path("uid").asText())).as("unique uid " + f).isTrue();
            assertThat(d.path("schemaVersion").asInt()).isGreaterThanOrEqualTo(36);
            List<String> vars = new ArrayList<>();
            for (JsonNode v : d.path("templating").path("list")) {
                vars.add(v.path("name").asText());
                assertThat(v.path("datasource").path("uid").asText()).isEqualTo(UID);
            }
            assertThat(vars).contains("run", "cell", "cache_state", "tiers", "policy", "transport", "pd");
            Set<Integer> ids = new HashSet<>();
            for (JsonNode panel : d.path("panels")) {
                assertThat(ids.add(panel.path("id").asInt()))
                        .as("unique panel id")
                        .isTrue();
                String type = panel.path("type").asText();
                assertThat(PANEL_TYPES)
                        .as(f.getFileName() + " " + panel.path("title"))
                        .contains(type);
                JsonNode gp = panel.path("gridPos");
                assertThat(gp.path("x").asInt() + gp.path("w").asInt()).isLessThanOrEqualTo(24);
                if (type.equals("row")) continue;
                assertThat(panel.path("datasource").path("uid").asText()).isEqualTo(UID);
                assertThat(panel.path("targets")).isNotEmpty();
                for (JsonNode t : panel.path("targets")) {
                    String where = f.getFileName() + " '" + panel.path("title").asText() + "'";
                    assertThat(t.path("rawQuery").asBoolean()).as(where).isTrue();
                    assertThat(t.path("datasource").path("uid").asText()).isEqualTo(UID);
                    String q = t.path("query").asText();
                    assertThat(q).as(where).contains("$timeFilter");
                    for (String v : vars)
                        assertThat(q).as(where + " filters by $" + v).contains("\"" + v + "\" =~ /^$" + v + "$/");
                    assertThat(q).as(where).doesNotContainPattern("=\\s*'\\$");
                }
            }
        }
    }

    @Test
    void theOverviewPutsHitRatioBesideGoodput() throws Exception {
        JsonNode d = JSON.readTree(PanelQueries.grafanaDir()
                .resolve("dashboards/ablation-overview.json")
                .toFile());
        List<JsonNode> panels = new ArrayList<>();
        d.path("panels").forEach(panels::add);
        int checked = 0;
        for (JsonNode p : panels) {
            if (!p.path("title").asText().toLowerCase().startsWith("goodput")) continue;
            int y = p.path("gridPos").path("y").asInt();
            boolean besideHit = panels.stream()
                    .anyMatch(o -> o.path("gridPos").path("y").asInt() == y
                            && o.path("title").asText().toLowerCase().contains("hit ratio"));
            assertThat(besideHit)
                    .as("a hit-ratio panel in the row of '" + p.path("title").asText() + "'")
                    .isTrue();
            checked++;
        }
        assertThat(checked).isGreaterThanOrEqualTo(2);
    }
}
