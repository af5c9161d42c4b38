package dev.kvlab.grafana;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The panel queries of kvlab's Grafana dashboards ({@code grafana/**}{@code /*.json}), and how Grafana turns each raw
 * InfluxQL {@code query} into what it sends to InfluxDB over a time range: {@code $timeFilter} → {@code time > now() - 6h},
 * {@code $__interval} → {@code 10s}, a variable in {@code =~ /^$var$/} → its "All" value {@code .*}.
 */
public final class PanelQueries {

    /** One target of one panel. */
    public record Target(String dashboard, String panel, String panelType, String refId, JsonNode json) {
        public String query() {
            JsonNode q = json.get("query");
            return q == null || q.isNull() ? null : q.asText();
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern VAR_REGEX = Pattern.compile("=~\\s*/\\^?\\$\\{?(\\w+)(?::\\w+)?\\}?\\$?/");

    private PanelQueries() {}

    /** The project's {@code grafana/} directory: found walking up from the working directory. */
    public static Path grafanaDir() {
        return dev.kvlab.workloads.testing.SourceTree.file("grafana/provisioning")
                .getParent();
    }

    /** Every dashboard JSON file under {@code grafana}. */
    public static List<Path> dashboards(Path grafana) throws IOException {
        try (Stream<Path> s = Files.walk(grafana)) {
            return s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
    }

    /** Every target of every non-row panel of every dashboard (nested panels of rows included). */
    public static List<Target> targets(Path grafana) throws IOException {
        List<Target> out = new ArrayList<>();
        for (Path f : dashboards(grafana)) {
            JsonNode d = JSON.readTree(f.toFile());
            if (d.has("dashboard")) d = d.get("dashboard");
            collect(f.getFileName().toString(), d.path("panels"), out);
        }
        return out;
    }

    private static void collect(String file, JsonNode panels, List<Target> out) {
        for (JsonNode p : panels) {
            if (!"row".equals(p.path("type").asText())) {
                for (JsonNode t : p.path("targets")) {
                    out.add(new Target(
                            file,
                            p.path("title").asText(),
                            p.path("type").asText(),
                            t.path("refId").asText(),
                            t));
                }
            }
            collect(file, p.path("panels"), out);
        }
    }

    /** {@code q} as Grafana sends it for the last 6 hours with every variable at "All" ({@code .*}). */
    public static String prepare(String q) {
        String s = q.replace("$timeFilter", "time > now() - 6h");
        s = s.replace("$__interval_ms", "10000").replace("$__interval", "10s").replace("$interval", "10s");
        Matcher m = VAR_REGEX.matcher(s);
        return m.replaceAll("=~ /^.*\\$/");
    }
}
