package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.bundle.CapacityFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A result bundle read for reporting ({@code docs/bundle-format.md}): {@code summary.json} (required), the
 * manifest (from {@code manifest.json}, or handed over by the runner before it writes one), and the
 * {@code cells/<cell>/r<k>/} directories. Read-only; nothing here writes.
 *
 * @param dir       the bundle directory
 * @param runId     run id
 * @param matrix    matrix name
 * @param factors   factor key → levels, in matrix order
 * @param baseline  baseline cell id, or null
 * @param columns   {@code summary.csv} columns
 * @param cells     the cells, in matrix order
 * @param manifest  the manifest, or a missing node
 * @param summary   {@code summary.json} as read
 */
public record BundleData(
        Path dir,
        String runId,
        String matrix,
        Map<String, List<String>> factors,
        String baseline,
        List<String> columns,
        List<CellData> cells,
        JsonNode manifest,
        JsonNode summary) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Reads {@code dir}; {@code manifest} overrides {@code manifest.json} when not null. */
    public static BundleData read(Path dir, JsonNode manifest) {
        if (!Files.isDirectory(dir)) throw new BadInputException(dir + ": not a directory (expected a result bundle)");
        Path summaryFile = dir.resolve("summary.json");
        if (!Files.isRegularFile(summaryFile))
            throw new BadInputException(dir + ": not a result bundle (no summary.json)");
        JsonNode summary = readJson(summaryFile);
        if (!summary.isObject() || !summary.path("rows").isArray())
            throw new BadInputException(summaryFile + ": not a bundle summary (no \"rows\" array)");
        JsonNode man = manifest;
        if (man == null) {
            Path mf = dir.resolve("manifest.json");
            man = Files.isRegularFile(mf) ? readJson(mf) : MissingNode.getInstance();
        }
        Map<String, List<String>> factors = new LinkedHashMap<>();
        summary.path("factors").properties().forEach(e -> {
            List<String> levels = new ArrayList<>();
            e.getValue().forEach(v -> levels.add(v.isValueNode() ? v.asText() : v.toString()));
            factors.put(e.getKey(), levels);
        });
        List<String> columns = new ArrayList<>();
        summary.path("columns").forEach(c -> columns.add(c.asText()));
        String baseline =
                summary.path("baseline").isTextual() ? summary.get("baseline").asText() : null;

        Map<String, List<Map<String, JsonNode>>> rowsByCell = new LinkedHashMap<>();
        for (JsonNode r : summary.get("rows")) {
            Map<String, JsonNode> row = new LinkedHashMap<>();
            r.properties().forEach(e -> row.put(e.getKey(), e.getValue()));
            rowsByCell
                    .computeIfAbsent(r.path("cell").asText(), k -> new ArrayList<>())
                    .add(row);
        }
        rowsByCell
                .values()
                .forEach(l -> l.sort(Comparator.comparingInt(
                        m -> m.get("replicate") == null ? 0 : m.get("replicate").asInt())));

        Map<String, JsonNode> manifestCells = new LinkedHashMap<>();
        man.path("cells").forEach(c -> manifestCells.put(c.path("cell").asText(), c));
        Map<String, ? extends JsonNode> manifestConfigs = dev.kvlab.harness.bundle.Manifest.configs(man);

        List<CellData> cells = new ArrayList<>();
        JsonNode cellNodes = summary.path("cells");
        List<String> order = new ArrayList<>();
        Map<String, JsonNode> byId = new LinkedHashMap<>();
        cellNodes.forEach(c -> {
            order.add(c.path("cell").asText());
            byId.put(c.path("cell").asText(), c);
        });
        for (String id : rowsByCell.keySet()) if (!byId.containsKey(id)) order.add(id);
        for (String id : order) {
            JsonNode c = byId.getOrDefault(id, MissingNode.getInstance());
            List<Map<String, JsonNode>> rows = rowsByCell.getOrDefault(id, List.of());
            Map<String, String> f = new LinkedHashMap<>();
            c.path("factors")
                    .properties()
                    .forEach(e -> f.put(
                            e.getKey(),
                            e.getValue().isValueNode()
                                    ? e.getValue().asText()
                                    : e.getValue().toString()));
            if (f.isEmpty())
                manifestCells
                        .getOrDefault(id, MissingNode.getInstance())
                        .path("factors")
                        .properties()
                        .forEach(e -> f.put(e.getKey(), e.getValue().asText()));
            Map<String, Stat> metrics = new LinkedHashMap<>();
            c.path("metrics").properties().forEach(e -> metrics.put(e.getKey(), Stat.of(e.getValue())));
            if (metrics.isEmpty()) metrics.putAll(meansOf(rows));
            Map<String, Stat> diffs = new LinkedHashMap<>();
            c.path("vs_baseline").properties().forEach(e -> diffs.put(e.getKey(), Stat.of(e.getValue())));
            String mode = c.path("mode")
                    .asText(
                            rows.isEmpty() || rows.getFirst().get("mode") == null
                                    ? ""
                                    : rows.getFirst().get("mode").asText());
            int replicates = c.path("replicates").asInt(rows.size());
            List<Path> dirs = replicateDirs(dir.resolve("cells").resolve(id));
            JsonNode cellJson = cellJson(dirs);
            JsonNode config = cellJson.path("config").isObject()
                    ? cellJson.get("config")
                    : configOf(manifestCells.get(id), manifestConfigs);
            Map<String, String> describe = new LinkedHashMap<>();
            cellJson.path("describe")
                    .properties()
                    .forEach(e -> describe.put(e.getKey(), e.getValue().asText()));
            cells.add(new CellData(
                    id,
                    Collections.unmodifiableMap(f),
                    mode,
                    replicates,
                    Collections.unmodifiableMap(metrics),
                    Collections.unmodifiableMap(diffs),
                    List.copyOf(rows),
                    dirs,
                    config,
                    Collections.unmodifiableMap(describe)));
        }
        String runId = summary.path("run_id")
                .asText(man.path("run_id").asText(dir.getFileName().toString()));
        String matrix = summary.path("matrix").asText("");
        return new BundleData(
                dir,
                runId,
                matrix,
                Collections.unmodifiableMap(factors),
                baseline,
                List.copyOf(columns),
                List.copyOf(cells),
                man,
                summary);
    }

    /** The same bundle without the cells that are capacity probes (every run {@code capacity.json} lists): its fixed-load cells. */
    public BundleData withoutProbes(JsonNode capacity) {
        java.util.Set<String> probes = CapacityFile.probeCells(capacity);
        List<CellData> kept =
                cells.stream().filter(c -> !probes.contains(c.id())).toList();
        Map<String, List<String>> fs = new LinkedHashMap<>(factors);
        fs.remove(capacity.path("knob").asText());
        return new BundleData(
                dir, runId, matrix, Collections.unmodifiableMap(fs), baseline, columns, kept, manifest, summary);
    }

    /** Factors that vary over the cells (at least two levels). */
    public List<String> varyingFactors() {
        List<String> out = new ArrayList<>();
        factors.forEach((k, v) -> {
            if (v.size() > 1) out.add(k);
        });
        return out;
    }

    public boolean hasFactor(String key) {
        return factors.containsKey(key);
    }

    public boolean anyLive() {
        return cells.stream().anyMatch(c -> "live".equals(c.mode()));
    }

    private static Map<String, Stat> meansOf(List<Map<String, JsonNode>> rows) {
        Map<String, Stat> m = new LinkedHashMap<>();
        if (rows.isEmpty()) return m;
        for (String col : rows.getFirst().keySet()) {
            double s = 0;
            int n = 0;
            for (Map<String, JsonNode> r : rows) {
                JsonNode v = r.get(col);
                if (v != null && v.isNumber()) {
                    s += v.asDouble();
                    n++;
                }
            }
            if (n > 0 && n == rows.size()) m.put(col, new Stat(s / n, Double.NaN, n, Double.NaN, Double.NaN));
        }
        return m;
    }

    private static List<Path> replicateDirs(Path cellDir) {
        if (!Files.isDirectory(cellDir)) return List.of();
        try (Stream<Path> s = Files.list(cellDir)) {
            return s.filter(Files::isDirectory)
                    .filter(p -> p.getFileName().toString().matches("r\\d+"))
                    .sorted(Comparator.comparingInt(
                            p -> Integer.parseInt(p.getFileName().toString().substring(1))))
                    .toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The first replicate's {@code cell.json}, or a missing node. */
    private static JsonNode cellJson(List<Path> dirs) {
        for (Path d : dirs) {
            if (!dev.kvlab.harness.bundle.RunFiles.recorded(d)) continue;
            try {
                return dev.kvlab.harness.bundle.RunFiles.cellJson(d);
            } catch (IOException e) {
                throw new BadInputException(
                        d + ": " + e.getMessage().lines().findFirst().orElse(""));
            }
        }
        return MissingNode.getInstance();
    }

    private static JsonNode configOf(JsonNode manifestCell, Map<String, ? extends JsonNode> configs) {
        if (manifestCell != null) {
            Iterator<JsonNode> it = manifestCell.path("replicates").iterator();
            if (it.hasNext()) {
                JsonNode c = configs.get(manifestCell.path("cell").asText() + "/r"
                        + it.next().path("replicate").asInt());
                if (c != null && c.isObject()) return c;
            }
        }
        return MissingNode.getInstance();
    }

    static JsonNode readJson(Path file) {
        try {
            return JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new BadInputException(file + ": not valid JSON: "
                    + e.getMessage().lines().findFirst().orElse(""));
        }
    }
}
