package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Csv;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.SummaryRow;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Checks a bundle against docs/bundle-format.md: the schema of manifest.json, summary.csv and summary.json; every
 * listed file present with its size and SHA-256; no unlisted file; summary.csv equal to summary.json's rows and to
 * the cells' {@code cell.json} summaries; every cell × replicate directory complete. {@link #rerun} re-executes
 * the cells from the manifest's resolved configs.
 */
public final class BundleVerifier {

    /** Columns summary.csv must have (DESIGN.md). */
    public static final List<String> REQUIRED_COLUMNS = java.util.stream.Stream.concat(
                    java.util.stream.Stream.of("cell", "replicate"), Columns.names(Columns.REQUIRED).stream())
            .toList();

    private static final List<String> CELL_FILES;

    static {
        List<String> l = new ArrayList<>();
        for (Metric m : Metric.values()) l.add(m.id() + ".hlog");
        l.add(CellFiles.REQUESTS_CSV);
        l.add(CellFiles.CELL_JSON);
        CELL_FILES = List.copyOf(l);
    }

    /** One thing wrong with one file. */
    public record Problem(String file, String message) {
        @Override
        public String toString() {
            return file + ": " + message;
        }
    }

    private BundleVerifier() {}

    public static List<Problem> verify(Path bundle) {
        return verify(bundle, f -> false);
    }

    /**
     * As {@link #verify(Path)}, but problems with the files {@code ignored} accepts (bundle-relative paths) are left
     * out and do not stop the later checks: {@code kvlab report} checks everything except the files it re-renders.
     */
    public static List<Problem> verify(Path bundle, java.util.function.Predicate<String> ignored) {
        List<Problem> p = new ArrayList<>();
        JsonNode manifest;
        try {
            manifest = BundleJson.read(bundle.resolve(PartialBundle.MANIFEST));
        } catch (IOException | RuntimeException e) {
            p.add(new Problem(
                    PartialBundle.MANIFEST,
                    Files.exists(bundle.resolve(PartialBundle.MANIFEST))
                            ? "not valid JSON: " + e.getMessage()
                            : "missing"));
            return p;
        }
        try {
            String seal = Manifest.checkSeal(Files.readAllBytes(bundle.resolve(PartialBundle.MANIFEST)));
            if (seal != null) p.add(new Problem(PartialBundle.MANIFEST, seal));
        } catch (IOException e) {
            p.add(new Problem(PartialBundle.MANIFEST, "cannot read: " + e.getMessage()));
        }
        if (!p.isEmpty()) return p;
        manifestSchema(manifest, p);
        if (!p.isEmpty()) return p;
        ShardManifest.check(
                manifest, p); // a shard of a matrix (kvlab run --shard): its section agrees with what it holds
        if (!p.isEmpty()) return p;
        checksums(bundle, manifest, p);
        p.removeIf(x -> ignored.test(x.file()));
        if (!p.isEmpty()) return p;
        summaries(bundle, manifest, p);
        p.removeIf(x -> ignored.test(x.file()));
        return p;
    }

    private static void manifestSchema(JsonNode m, List<Problem> p) {
        String f = PartialBundle.MANIFEST;
        if (!m.isObject()) {
            p.add(new Problem(f, "not a JSON object"));
            return;
        }
        if (m.path("schema").asInt(-1) != Manifest.SCHEMA)
            p.add(new Problem(f, "schema is " + m.get("schema") + ", want " + Manifest.SCHEMA));
        for (String k : List.of("run_id", "kvlab_version", "started_at", "ended_at"))
            if (!m.path(k).isTextual() || m.path(k).asText().isBlank())
                p.add(new Problem(f, "'" + k + "' missing or not text"));
        for (String k : List.of("git", "jvm", "os", "cpu", "matrix"))
            if (!m.path(k).isObject()) p.add(new Problem(f, "'" + k + "' missing or not an object"));
        for (String k : List.of("command_line", "cells", "inputs", "files", "emulated"))
            if (!m.path(k).isArray()) p.add(new Problem(f, "'" + k + "' missing or not a list"));
        if (!p.isEmpty()) return;
        if (!m.path("matrix").path("sha256").asText("").matches("[0-9a-f]{64}"))
            p.add(new Problem(f, "matrix.sha256 is not a SHA-256"));
        for (JsonNode e : m.get("files")) {
            String path = e.path("path").asText("");
            if (path.isEmpty() || path.startsWith("/") || path.contains("..") || path.contains("\\"))
                p.add(new Problem(f, "files: bad path '" + path + "'"));
            if (!e.path("sha256").asText("").matches("[0-9a-f]{64}"))
                p.add(new Problem(f, "files: " + path + ": bad sha256"));
            if (!e.path("bytes").canConvertToLong() || e.path("bytes").asLong() < 0)
                p.add(new Problem(f, "files: " + path + ": bad bytes"));
        }
        for (JsonNode c : m.get("cells")) {
            if (!c.path("cell").isTextual()
                    || !c.path("replicates").isArray()
                    || c.path("replicates").isEmpty())
                p.add(new Problem(f, "cells: entry without cell id or replicates: " + c));
            for (JsonNode r : c.path("replicates"))
                if (!r.path("replicate").canConvertToInt()
                        || !r.path("seed").isIntegralNumber()
                        || !(r.path("config").isObject()
                                || r.path("config_from").isTextual()
                                        && r.path("config_set").isObject()))
                    p.add(new Problem(
                            f, "cells: " + c.path("cell").asText() + ": replicate without replicate/seed/config"));
        }
        if (!p.isEmpty()) return;
        Map<String, com.fasterxml.jackson.databind.node.ObjectNode> configs = Manifest.configs(m);
        for (JsonNode c : m.get("cells"))
            for (JsonNode r : c.get("replicates")) {
                String label =
                        c.get("cell").asText() + "/r" + r.get("replicate").asInt();
                if (!configs.containsKey(label))
                    p.add(new Problem(
                            f,
                            "cells: " + label + ": config_from '"
                                    + r.path("config_from").asText() + "' names no run with a config"));
            }
    }

    private static void checksums(Path bundle, JsonNode m, List<Problem> p) {
        Map<String, JsonNode> listed = new LinkedHashMap<>();
        for (JsonNode e : m.get("files")) {
            if (listed.put(e.get("path").asText(), e) != null)
                p.add(new Problem(
                        PartialBundle.MANIFEST, "files: " + e.get("path").asText() + " listed twice"));
        }
        Set<String> actual = new LinkedHashSet<>();
        try {
            for (Path f : Manifest.listFiles(bundle)) {
                String rel = Manifest.relative(bundle, f);
                if (!rel.equals(PartialBundle.MANIFEST)) actual.add(rel);
            }
        } catch (IOException e) {
            p.add(new Problem(bundle.toString(), "cannot list: " + e.getMessage()));
            return;
        }
        for (String a : actual)
            if (!listed.containsKey(a)) p.add(new Problem(a, "not listed in manifest.json (extra file)"));
        strayEntries(bundle, p);
        for (var e : listed.entrySet()) {
            String rel = e.getKey();
            Path f = bundle.resolve(rel);
            if (!actual.contains(rel)) {
                p.add(new Problem(rel, "missing"));
                continue;
            }
            try {
                long size = Files.size(f);
                if (size != e.getValue().get("bytes").asLong())
                    p.add(new Problem(
                            rel,
                            "size " + size + " bytes, manifest says "
                                    + e.getValue().get("bytes").asLong()));
                else if (!Sha256.of(f).equals(e.getValue().get("sha256").asText()))
                    p.add(new Problem(rel, "SHA-256 differs from the manifest's"));
            } catch (IOException ex) {
                p.add(new Problem(rel, "cannot read: " + ex.getMessage()));
            }
        }
        for (JsonNode c : m.get("cells")) {
            for (JsonNode r : c.get("replicates")) {
                String dir = "cells/" + c.get("cell").asText() + "/r"
                        + r.get("replicate").asInt();
                if (CellFiles.probe(c.get("cell").asText())) {
                    // a capacity probe: one tagged interval log holding its record; requests.csv.gz as bundle.requests
                    // keeps
                    if (!listed.containsKey(dir + "/" + CellFiles.RUN_HLOG))
                        p.add(new Problem(dir + "/" + CellFiles.RUN_HLOG, "missing (every probe run has it)"));
                    continue;
                }
                for (String cf : CELL_FILES)
                    if (!listed.containsKey(dir + "/" + cf))
                        p.add(new Problem(dir + "/" + cf, "missing (every cell run has it)"));
            }
        }
        for (String top : List.of(PartialBundle.SUMMARY_CSV, PartialBundle.SUMMARY_JSON, "report.html"))
            if (!listed.containsKey(top)) p.add(new Problem(top, "missing"));
    }

    /** A bundle holds regular files and the directories that contain them: a symbolic link or an empty directory is a problem. */
    private static void strayEntries(Path bundle, List<Problem> p) {
        try (java.util.stream.Stream<Path> w = Files.walk(bundle)) {
            for (Path e : (Iterable<Path>) w::iterator) {
                if (e.equals(bundle)) continue;
                String rel = Manifest.relative(bundle, e);
                if (Files.isSymbolicLink(e))
                    p.add(new Problem(rel, "a symbolic link (a bundle holds only regular files)"));
                else if (Files.isDirectory(e, java.nio.file.LinkOption.NOFOLLOW_LINKS) && !holdsAFile(e))
                    p.add(new Problem(rel + "/", "an empty directory, not part of the bundle (extra directory)"));
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            p.add(new Problem(bundle.toString(), "cannot list: " + e.getMessage()));
        }
    }

    private static boolean holdsAFile(Path dir) throws IOException {
        try (java.util.stream.Stream<Path> w = Files.walk(dir)) {
            return w.anyMatch(f -> Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        }
    }

    private static void summaries(Path bundle, JsonNode m, List<Problem> p) {
        List<List<String>> csv;
        JsonNode sj;
        try {
            csv = Csv.parse(Files.readString(bundle.resolve(PartialBundle.SUMMARY_CSV), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            p.add(new Problem(PartialBundle.SUMMARY_CSV, "not readable CSV: " + e.getMessage()));
            return;
        }
        try {
            sj = BundleJson.read(bundle.resolve(PartialBundle.SUMMARY_JSON));
        } catch (IOException | RuntimeException e) {
            p.add(new Problem(PartialBundle.SUMMARY_JSON, "not valid JSON: " + e.getMessage()));
            return;
        }
        if (csv.isEmpty()) {
            p.add(new Problem(PartialBundle.SUMMARY_CSV, "empty"));
            return;
        }
        List<String> header = csv.get(0);
        for (String c : REQUIRED_COLUMNS)
            if (!header.contains(c)) p.add(new Problem(PartialBundle.SUMMARY_CSV, "no column '" + c + "'"));
        if (!header.subList(0, Math.min(2, header.size())).equals(List.of("cell", "replicate")))
            p.add(new Problem(PartialBundle.SUMMARY_CSV, "the first columns must be cell, replicate"));
        if (sj.path("schema").asInt(-1) != SummaryTable.SCHEMA)
            p.add(new Problem(PartialBundle.SUMMARY_JSON, "schema is " + sj.get("schema")));
        if (!sj.path("run_id").asText().equals(m.get("run_id").asText()))
            p.add(new Problem(
                    PartialBundle.SUMMARY_JSON,
                    "run_id " + sj.path("run_id") + " differs from the manifest's " + m.get("run_id")));
        for (String k : List.of("columns", "rows", "cells"))
            if (!sj.path(k).isArray())
                p.add(new Problem(PartialBundle.SUMMARY_JSON, "'" + k + "' missing or not a list"));
        if (!p.isEmpty()) return;
        List<String> cols = new ArrayList<>();
        sj.get("columns").forEach(c -> cols.add(c.asText()));
        if (!cols.equals(header))
            p.add(new Problem(PartialBundle.SUMMARY_CSV, "header differs from summary.json's columns"));
        List<String> expected = new ArrayList<>();
        for (JsonNode c : m.get("cells"))
            for (JsonNode r : c.get("replicates"))
                expected.add(c.get("cell").asText() + "/" + r.get("replicate").asInt());
        JsonNode rows = sj.get("rows");
        if (csv.size() - 1 != rows.size())
            p.add(new Problem(PartialBundle.SUMMARY_CSV, (csv.size() - 1) + " rows, summary.json has " + rows.size()));
        if (rows.size() != expected.size())
            p.add(new Problem(
                    PartialBundle.SUMMARY_JSON,
                    rows.size() + " rows, the manifest has " + expected.size() + " cell runs"));
        if (!p.isEmpty()) return;
        Map<String, JsonNode> cellJson = new LinkedHashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            List<String> line = csv.get(i + 1);
            JsonNode row = rows.get(i);
            if (line.size() != header.size()) {
                p.add(new Problem(
                        PartialBundle.SUMMARY_CSV,
                        "row " + (i + 1) + " has " + line.size() + " fields, the header " + header.size()));
                continue;
            }
            for (int c = 0; c < header.size(); c++) {
                String fromJson = Csv.text(Rows.fromJson(row.get(header.get(c))));
                if (!fromJson.equals(line.get(c))) {
                    p.add(new Problem(
                            PartialBundle.SUMMARY_CSV,
                            "row " + (i + 1) + " column " + header.get(c) + " is '" + line.get(c)
                                    + "', summary.json says '" + fromJson + "'"));
                }
            }
            String id = line.get(0) + "/" + line.get(1);
            if (!id.equals(expected.get(i))) {
                p.add(new Problem(
                        PartialBundle.SUMMARY_CSV,
                        "row " + (i + 1) + " is " + id + ", the manifest's order has " + expected.get(i)));
                continue;
            }
            Path runDir = CellFiles.dir(bundle, line.get(0), Integer.parseInt(line.get(1)));
            String cj = "cells/" + line.get(0) + "/r" + line.get(1) + "/" + RunFiles.recordFile(runDir);
            try {
                JsonNode s = RunFiles.cellJson(runDir).get("summary");
                cellJson.put(id, s);
                for (int c = 2; c < header.size(); c++) {
                    if (s == null || !s.has(header.get(c))) continue;
                    String v = Csv.text(Rows.fromJson(s.get(header.get(c))));
                    if (!v.equals(line.get(c)))
                        p.add(new Problem(
                                PartialBundle.SUMMARY_CSV,
                                "row " + (i + 1) + " column " + header.get(c) + " is '" + line.get(c) + "', " + cj
                                        + " says '" + v + "'"));
                }
            } catch (IOException | RuntimeException e) {
                p.add(new Problem(cj, "not valid JSON: " + e.getMessage()));
            }
        }
    }

    /** What {@link #rerun} found. */
    public record Rerun(int simRuns, int liveRuns, List<String> mismatches, List<String> liveNotes) {
        public boolean identical() {
            return mismatches.isEmpty();
        }
    }

    /**
     * Re-executes every cell × replicate of the manifest from its resolved config. Sim runs must give a
     * bit-identical summary (every field of {@code cell.json}'s summary, fields with {@code wall} in their name
     * excepted); live runs are compared against the cell's 95% interval in summary.json and only reported.
     */
    public static Rerun rerun(Path bundle, CellRunner runner, PrintWriter log) throws IOException {
        JsonNode m = BundleJson.read(bundle.resolve(PartialBundle.MANIFEST));
        JsonNode sj = BundleJson.read(bundle.resolve(PartialBundle.SUMMARY_JSON));
        Map<String, JsonNode> cellStats = new LinkedHashMap<>();
        for (JsonNode c : sj.path("cells")) cellStats.put(c.path("cell").asText(), c.path("metrics"));
        List<String> mismatches = new ArrayList<>(), notes = new ArrayList<>();
        int sim = 0, live = 0;
        Map<String, com.fasterxml.jackson.databind.node.ObjectNode> configs = Manifest.configs(m);
        for (JsonNode c : m.get("cells")) {
            String cell = c.get("cell").asText();
            for (JsonNode r : c.get("replicates")) {
                int k = r.get("replicate").asInt();
                String label = cell + "/r" + k;
                if (!configs.containsKey(label))
                    throw new IOException("manifest.json: " + label + " has no config (run kvlab verify)");
                RunConfig rc = ConfigTree.of(configs.get(label), "manifest.json " + label, null)
                        .bind();
                long t0 = System.nanoTime();
                CellResult res = runner.run(rc, t0);
                JsonNode stored =
                        RunFiles.cellJson(CellFiles.dir(bundle, cell, k)).get("summary");
                SummaryRow fresh = Rows.normalize(res.json());
                boolean isSim =
                        "sim".equals(r.path("mode").asText(c.path("mode").asText()));
                if (isSim) {
                    sim++;
                    List<String> diffs = new ArrayList<>();
                    Set<String> keys = new LinkedHashSet<>();
                    stored.fieldNames().forEachRemaining(keys::add);
                    keys.addAll(fresh.names());
                    for (String key : keys) {
                        if (key.contains("wall")) continue;
                        String a = stored.has(key) ? Csv.text(Rows.fromJson(stored.get(key))) : "(absent)";
                        String b = fresh.has(key) ? Csv.text(Rows.fromJson(Rows.toJson(fresh.get(key)))) : "(absent)";
                        if (!a.equals(b)) diffs.add(key + " " + a + " -> " + b);
                    }
                    if (diffs.isEmpty()) log.println("kvlab: " + label + " (sim): identical");
                    else {
                        String msg = label + " (sim): " + diffs.size() + " fields differ: "
                                + String.join(", ", diffs.subList(0, Math.min(6, diffs.size())));
                        mismatches.add(msg);
                        log.println("kvlab: " + msg);
                    }
                } else {
                    live++;
                    JsonNode stats =
                            cellStats.getOrDefault(cell, com.fasterxml.jackson.databind.node.MissingNode.getInstance());
                    List<String> parts = new ArrayList<>();
                    for (String key : Columns.names(List.of(
                            Columns.TTFT_P50,
                            Columns.TTFT_P99,
                            Columns.ITL_P99,
                            Columns.E2EL_P99,
                            Columns.GOODPUT_RPS,
                            Columns.LOCAL_HIT_RATIO,
                            Columns.REMOTE_HIT_RATIO))) {
                        Object v = fresh.get(key);
                        if (!(v instanceof Number n)) continue;
                        JsonNode st = stats.path(key);
                        JsonNode ci = st.path("ci95");
                        String where;
                        if (ci.isArray()) {
                            double lo = ci.get(0).asDouble(), hi = ci.get(1).asDouble();
                            where = n.doubleValue() >= lo && n.doubleValue() <= hi ? "inside" : "OUTSIDE";
                            where += String.format(Locale.ROOT, " [%.3f, %.3f]", lo, hi);
                        } else {
                            double was = stored.path(key).asDouble(Double.NaN);
                            where = String.format(Locale.ROOT, "was %.3f (no interval: one replicate)", was);
                        }
                        parts.add(String.format(Locale.ROOT, "%s %.3f %s", key, n.doubleValue(), where));
                    }
                    String msg = label + " (live): " + String.join("; ", parts);
                    notes.add(msg);
                    log.println("kvlab: " + msg);
                }
                log.flush();
            }
        }
        return new Rerun(sim, live, mismatches, notes);
    }

    static Set<String> set(JsonNode arr) {
        Set<String> s = new HashSet<>();
        arr.forEach(x -> s.add(x.asText()));
        return s;
    }
}
