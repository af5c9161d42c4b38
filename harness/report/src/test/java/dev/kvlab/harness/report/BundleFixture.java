package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.IntervalHistogram;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.RequestRecord;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * Writes small result bundles per {@code docs/bundle-format.md} from real sim cells ({@link CellRunner}), for the
 * report's tests until the matrix runner's writer exists. Factors are set on the config tree; "pseudo" factors
 * (keys the config does not know yet, e.g. {@code fault}) only label cells.
 */
final class BundleFixture {

    static final String BASE = """
            model: llama-3-8b
            hardware: h100
            cluster:
              instances: 2
            store:
              nodes: 2
              capacity: 64GiB
            workload:
              generator:
                kind: shared-prefix
                groups: 4
                prompts_per_group: 12
                prefix_tokens: 6144
                suffix_tokens: 256
                output_tokens: 16
              arrival:
                process: poisson
                rate: 9
            slo:
              ttft_ms: 300
              tpot_ms: 50
            measurement:
              interval: 2s
            """;

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final double[] T975 = {
        Double.NaN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228
    };

    private final String yaml;
    private final Map<String, List<String>> factors = new LinkedHashMap<>();
    private final List<String> pseudo = new ArrayList<>();
    private int replicates = 2;
    private long seed = 11;
    private String baseline;
    private String name = "fixture";

    BundleFixture(String yaml) {
        this.yaml = yaml;
    }

    BundleFixture factor(String key, String... levels) {
        factors.put(key, List.of(levels));
        return this;
    }

    /** A factor that only labels cells (the config has no such key yet). */
    BundleFixture pseudoFactor(String key, String... levels) {
        factors.put(key, List.of(levels));
        pseudo.add(key);
        return this;
    }

    BundleFixture replicates(int n) {
        replicates = n;
        return this;
    }

    BundleFixture baseline(String cell) {
        baseline = cell;
        return this;
    }

    BundleFixture name(String n) {
        name = n;
        return this;
    }

    /** Runs every cell × replicate and writes the bundle (without report, plots or manifest) under {@code out}. */
    Path write(Path out) throws IOException {
        String runId = "20260101-000000-" + name + "-abcdef";
        Path dir = out.resolve(runId);
        Files.createDirectories(dir);
        List<Map<String, String>> cells = cellLevels();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < cells.size(); i++) ids.add(cellId(i, cells.get(i)));
        String base = baseline != null ? baseline : ids.getFirst();

        List<String> columns = new ArrayList<>(List.of("cell", "replicate"));
        List<Map<String, Object>> rows = new ArrayList<>();
        ObjectNode manifest = JsonNodeFactory.instance.objectNode();
        ArrayNode manCells = JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < cells.size(); i++) {
            Map<String, String> f = cells.get(i);
            String id = ids.get(i);
            ObjectNode mc = manCells.addObject();
            mc.put("cell", id);
            mc.set("factors", JSON.valueToTree(f));
            ArrayNode reps = mc.putArray("replicates");
            for (int k = 0; k < replicates; k++) {
                ConfigTree t = ConfigTree.parse(yaml, "fixture.yaml", null);
                t.set("seed", Long.toString(seed + k), "fixture");
                f.forEach((key, v) -> {
                    if (!pseudo.contains(key)) t.set(key, v, "fixture factor");
                });
                CellResult r = new CellRunner().run(t.bind());
                mc.put("mode", r.summary().get(Columns.MODE));
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("cell", id);
                row.put("replicate", k);
                r.json().forEach(row::put);
                for (String p : pseudo) row.put(p, f.get(p));
                if (columns.size() == 2)
                    columns.addAll(row.keySet().stream().skip(2).toList());
                rows.add(row);
                ObjectNode rep = reps.addObject();
                rep.put("replicate", k);
                rep.put("seed", seed + k);
                rep.set("config", t.tree());
                writeReplicate(dir.resolve("cells").resolve(id).resolve("r" + k), id, k, f, r, t.tree());
            }
        }
        writeCsv(dir.resolve("summary.csv"), columns, rows);
        ObjectNode summary = JsonNodeFactory.instance.objectNode();
        summary.put("schema", 1);
        summary.put("run_id", runId);
        summary.put("matrix", name);
        summary.set("factors", JSON.valueToTree(factors));
        summary.put("baseline", base);
        summary.set("columns", JSON.valueToTree(columns));
        ArrayNode rowsNode = summary.putArray("rows");
        for (Map<String, Object> r : rows) rowsNode.add(jsonRow(r));
        ArrayNode cellsNode = summary.putArray("cells");
        for (int i = 0; i < cells.size(); i++) {
            String id = ids.get(i);
            ObjectNode c = cellsNode.addObject();
            c.put("cell", id);
            c.set("factors", JSON.valueToTree(cells.get(i)));
            List<Map<String, Object>> mine =
                    rows.stream().filter(r -> r.get("cell").equals(id)).toList();
            List<Map<String, Object>> theirs =
                    rows.stream().filter(r -> r.get("cell").equals(base)).toList();
            c.put("mode", String.valueOf(mine.getFirst().get("mode")));
            c.put("replicates", mine.size());
            ObjectNode metrics = c.putObject("metrics");
            ObjectNode vs = id.equals(base) ? null : c.putObject("vs_baseline");
            for (String col : columns) {
                if (col.equals("cell")
                        || col.equals("replicate")
                        || !(mine.getFirst().get(col) instanceof Number)) continue;
                double[] v = mine.stream()
                        .mapToDouble(r -> ((Number) r.get(col)).doubleValue())
                        .toArray();
                metrics.set(col, stat(v, "mean"));
                if (vs != null) {
                    double[] d = new double[v.length];
                    for (int k = 0; k < v.length; k++)
                        d[k] = v[k] - ((Number) theirs.get(k).get(col)).doubleValue();
                    ObjectNode s = stat(d, "mean_diff");
                    s.remove("stdev");
                    vs.set(col, s);
                }
            }
            if (vs == null) c.putNull("vs_baseline");
        }
        Files.writeString(dir.resolve("summary.json"), JSON.writeValueAsString(summary));

        manifest.put("schema", 1);
        manifest.put("run_id", runId);
        manifest.put("kvlab_version", "0.1.0-SNAPSHOT");
        manifest.putObject("git")
                .put("commit", "0123456789abcdef0123456789abcdef01234567")
                .put("dirty", false);
        manifest.set(
                "command_line",
                JSON.valueToTree(
                        List.of("kvlab", "run", "ablations/" + name + ".yaml", "--influx-token", "<redacted>")));
        manifest.put("started_at", "2026-01-01T00:00:00Z");
        manifest.put("ended_at", "2026-01-01T00:00:42Z");
        manifest.putObject("jvm")
                .put("name", System.getProperty("java.vm.name"))
                .put("version", System.getProperty("java.version"))
                .put("vendor", System.getProperty("java.vm.vendor"));
        manifest.putObject("os").put("name", "Linux").put("version", "6.1").put("arch", "amd64");
        manifest.putObject("cpu").put("model", "Test CPU @ 2.0GHz").put("logical_cores", 2);
        manifest.putObject("matrix")
                .put("file", "ablations/" + name + ".yaml")
                .put("sha256", "ab".repeat(32))
                .putObject("resolved");
        manifest.set("cells", manCells);
        manifest.set(
                "emulated",
                JSON.valueToTree(List.of(
                        "GPU time: modelled by the roofline (prefill MFU, decode bandwidth)",
                        "data movement (sim): transport model")));
        manifest.putArray("inputs");
        Files.writeString(dir.resolve(".manifest-draft.json"), JSON.writeValueAsString(manifest));
        return dir;
    }

    /** The manifest this fixture would write (without {@code files}). */
    static ObjectNode draftManifest(Path bundle) throws IOException {
        return (ObjectNode) JSON.readTree(bundle.resolve(".manifest-draft.json").toFile());
    }

    /** Writes {@code manifest.json} listing every file (SHA-256, bytes) and removes the draft. */
    static void finish(Path bundle) throws IOException {
        ObjectNode m = draftManifest(bundle);
        Files.delete(bundle.resolve(".manifest-draft.json"));
        ArrayNode files = m.putArray("files");
        try (Stream<Path> s = Files.walk(bundle)) {
            for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
                String rel = bundle.relativize(p).toString().replace('\\', '/');
                if (rel.equals("manifest.json")) continue;
                files.addObject()
                        .put("path", rel)
                        .put("sha256", sha256(Files.readAllBytes(p)))
                        .put("bytes", Files.size(p));
            }
        }
        Files.writeString(bundle.resolve("manifest.json"), JSON.writeValueAsString(m));
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private List<Map<String, String>> cellLevels() {
        List<Map<String, String>> out = new ArrayList<>();
        out.add(new LinkedHashMap<>());
        for (var e : factors.entrySet()) {
            List<Map<String, String>> next = new ArrayList<>();
            for (Map<String, String> m : out)
                for (String v : e.getValue()) {
                    Map<String, String> n = new LinkedHashMap<>(m);
                    n.put(e.getKey(), v);
                    next.add(n);
                }
            out = next;
        }
        return out;
    }

    private static String cellId(int i, Map<String, String> f) {
        String v = f.isEmpty()
                ? "base"
                : String.join(
                        "_",
                        f.values().stream()
                                .map(x -> x.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]", "-"))
                                .toList());
        return String.format(Locale.ROOT, "c%02d-%s", i + 1, v);
    }

    private static ObjectNode stat(double[] v, String meanKey) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        int n = v.length;
        double mean = 0;
        for (double x : v) mean += x;
        mean /= n;
        double var = 0;
        for (double x : v) var += (x - mean) * (x - mean);
        double sd = n > 1 ? Math.sqrt(var / (n - 1)) : Double.NaN;
        num(o, meanKey, mean);
        num(o, "stdev", sd);
        o.put("n", n);
        if (n < 2 || !Double.isFinite(mean)) o.putNull("ci95");
        else {
            double hw = T975[Math.min(n - 1, 10)] * sd / Math.sqrt(n);
            ArrayNode ci = o.putArray("ci95");
            ci.add(mean - hw);
            ci.add(mean + hw);
        }
        return o;
    }

    private static void num(ObjectNode o, String k, double v) {
        if (Double.isFinite(v)) o.put(k, v);
        else o.putNull(k);
    }

    private static ObjectNode jsonRow(Map<String, Object> r) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        r.forEach((k, v) -> {
            if (v instanceof Double d) num(o, k, d);
            else o.set(k, JSON.valueToTree(v));
        });
        return o;
    }

    private static void writeCsv(Path file, List<String> columns, List<Map<String, Object>> rows) throws IOException {
        StringBuilder sb = new StringBuilder(String.join(",", columns)).append('\n');
        for (Map<String, Object> r : rows) {
            List<String> vals = new ArrayList<>();
            for (String c : columns) vals.add(csv(r.get(c)));
            sb.append(String.join(",", vals)).append('\n');
        }
        Files.writeString(file, sb.toString());
    }

    private static String csv(Object v) {
        String s = v == null ? "" : v.toString();
        if (s.contains(",") || s.contains("\"") || s.contains("\n")) s = "\"" + s.replace("\"", "\"\"") + "\"";
        return s;
    }

    private static void writeReplicate(
            Path dir, String id, int k, Map<String, String> f, CellResult r, ObjectNode config) throws IOException {
        Files.createDirectories(dir);
        for (Metric m : Metric.values()) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (PrintStream ps = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
                HistogramLogWriter w = new HistogramLogWriter(ps);
                w.outputLogFormatVersion();
                w.outputStartTime(1_767_225_600_000L);
                w.outputLegend();
                for (IntervalHistogram ih : r.intervals().getOrDefault(m, List.of())) {
                    Histogram h = ih.histogram();
                    w.outputIntervalHistogram(h);
                }
            }
            Files.write(dir.resolve(m.id() + ".hlog"), bytes.toByteArray());
        }
        StringBuilder sb = new StringBuilder(RequestRecord.CSV_HEADER).append('\n');
        for (RequestRecord q : r.requests()) {
            sb.append(q.id())
                    .append(',')
                    .append(csv(q.session()))
                    .append(',')
                    .append(q.arrivalMs())
                    .append(',')
                    .append(q.instance())
                    .append(',')
                    .append(q.inputTokens())
                    .append(',')
                    .append(q.outputTokens())
                    .append(',')
                    .append(q.localHitTokens())
                    .append(',')
                    .append(q.remoteHitTokens())
                    .append(',')
                    .append(q.fetchedBytes())
                    .append(',')
                    .append(q.fallbackBlocks())
                    .append(',')
                    .append(q.queueMs())
                    .append(',')
                    .append(q.fetchMs())
                    .append(',')
                    .append(q.ttftMs())
                    .append(',')
                    .append(q.tpotMs())
                    .append(',')
                    .append(q.tbtMs())
                    .append(',')
                    .append(q.e2elMs())
                    .append(',')
                    .append(q.good())
                    .append(',')
                    .append(csv(q.status()))
                    .append('\n');
        }
        Files.writeString(dir.resolve("requests.csv"), sb.toString());
        ObjectNode cj = JsonNodeFactory.instance.objectNode();
        cj.put("cell", id);
        cj.put("replicate", k);
        cj.set("factors", JSON.valueToTree(f));
        Map<String, Object> summary = new LinkedHashMap<>();
        r.json().forEach(summary::put);
        cj.set("summary", jsonRow(summary));
        cj.set("describe", JSON.valueToTree(r.describe()));
        cj.set("config", config);
        Files.writeString(dir.resolve("cell.json"), JSON.writeValueAsString(cj));
    }
}
