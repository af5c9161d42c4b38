package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.SummaryRow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/** Builds {@code manifest.json} (docs/bundle-format.md): provenance, the resolved matrix, inputs and every file's SHA-256. */
public final class Manifest {

    public static final int SCHEMA = 1;

    private Manifest() {}

    /** The manifest without its {@code files} list (the caller adds it once every other file is written). */
    static ObjectNode build(
            String runId,
            MatrixSpec spec,
            List<CellRun> runs,
            Provenance prov,
            JsonNode state,
            Instant end,
            SummaryTable table) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode m = f.objectNode();
        m.put("schema", SCHEMA);
        m.put("run_id", runId);
        m.put("kvlab_version", prov.kvlabVersion());
        ObjectNode git = m.putObject("git");
        git.put("commit", prov.gitCommit());
        if (prov.gitDirty() == null) git.putNull("dirty");
        else git.put("dirty", prov.gitDirty());
        ArrayNode cl = m.putArray("command_line");
        prov.commandLine().forEach(cl::add);
        JsonNode first = state.get("command_line");
        if (first instanceof ArrayNode a && !a.isEmpty() && !a.equals(cl)) m.set("first_command_line", a.deepCopy());
        m.put("started_at", state.path("started_at").asText());
        m.put("ended_at", end.toString());
        JsonNode resumed = state.get("resumed_at");
        m.set("resumed_at", resumed instanceof ArrayNode ra ? ra.deepCopy() : f.arrayNode());
        m.set("jvm", Provenance.jvm());
        m.set("os", Provenance.os());
        m.set("cpu", Provenance.cpu());
        ObjectNode mx = m.putObject("matrix");
        if (spec.file() == null) mx.putNull("file");
        else mx.put("file", spec.file().toString());
        mx.put("sha256", spec.sha256());
        mx.set("resolved", spec.resolved().deepCopy());
        ArrayNode cells = m.putArray("cells");
        Map<String, CellRun> firstOfSearch = new java.util.HashMap<>();
        Map<String, List<CellRun>> byCell = new java.util.LinkedHashMap<>();
        for (CellRun r : runs)
            byCell.computeIfAbsent(r.cell(), k -> new ArrayList<>()).add(r);
        for (List<CellRun> c : byCell.values()) {
            ObjectNode co = cells.addObject();
            co.put("cell", c.get(0).cell());
            ObjectNode fo = co.putObject("factors");
            c.get(0).factors().forEach(fo::put);
            co.put("mode", c.get(0).mode().label());
            ArrayNode rs = co.putArray("replicates");
            for (CellRun r : c) {
                ObjectNode ro = rs.addObject();
                ro.put("replicate", r.replicate());
                ro.put("seed", r.seed());
                ro.put("mode", r.mode().label());
                CellRun base = CellFiles.probe(r.cell()) ? firstOfSearch.putIfAbsent(searchOf(r), r) : null;
                ObjectNode set = base == null ? null : diff(base.tree(), r.tree());
                if (set == null) ro.set("config", r.tree());
                else {
                    ro.put("config_from", base.label());
                    ro.set("config_set", set);
                }
            }
        }
        Set<String> emulated = new LinkedHashSet<>();
        for (SummaryRow row : table.rows())
            if (row.get(Columns.EMULATED_PARTS) instanceof String s && !s.isBlank()) emulated.add(s);
        ArrayNode em = m.putArray("emulated");
        emulated.forEach(em::add);
        ArrayNode in = m.putArray("inputs");
        for (MatrixSpec.Input i : spec.inputs()) {
            ObjectNode io = in.addObject();
            io.put("path", i.path());
            io.put("sha256", i.sha256());
            io.put("bytes", i.bytes());
        }
        return m;
    }

    /** A probe's search: {@code <cell>/r<k>} of the cell searched (the probe's id up to its {@code @}). */
    private static String searchOf(CellRun r) {
        return r.cell().substring(0, r.cell().indexOf('@')) + "/r" + r.replicate();
    }

    /**
     * The keys of {@code to} that differ from {@code from}, as dotted path → value (objects recursed into), or null when
     * {@code to} lacks a key {@code from} has (a difference that setting keys cannot say) or a key holds a dot.
     */
    static ObjectNode diff(JsonNode from, JsonNode to) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        return diff(from, to, "", out) ? out : null;
    }

    private static boolean diff(JsonNode from, JsonNode to, String prefix, ObjectNode out) {
        var names = from.fieldNames();
        while (names.hasNext()) if (!to.has(names.next())) return false;
        for (var e : to.properties()) {
            if (e.getKey().indexOf('.') >= 0) return false;
            JsonNode a = from.get(e.getKey());
            JsonNode b = e.getValue();
            if (b.equals(a)) continue;
            if (a instanceof ObjectNode && b instanceof ObjectNode) {
                if (!diff(a, b, prefix + e.getKey() + ".", out)) return false;
            } else out.set(prefix + e.getKey(), b.deepCopy());
        }
        return true;
    }

    /**
     * Every run's resolved config tree in {@code manifest}, by run label ({@code <cell>/r<k>}): a replicate's
     * {@code config}, or for a capacity probe after the first of its search, {@code config_from} (that first probe's
     * label) with {@code config_set} (dotted key → value) applied. A label missing from the map has neither (verify says so).
     */
    public static Map<String, ObjectNode> configs(JsonNode manifest) {
        Map<String, ObjectNode> out = new java.util.LinkedHashMap<>();
        Map<String, JsonNode> pending = new java.util.LinkedHashMap<>();
        for (JsonNode c : manifest.path("cells"))
            for (JsonNode r : c.path("replicates")) {
                String label =
                        c.path("cell").asText() + "/r" + r.path("replicate").asInt();
                if (r.path("config") instanceof ObjectNode o) out.put(label, o);
                else pending.put(label, r);
            }
        for (var e : pending.entrySet()) {
            ObjectNode from = out.get(e.getValue().path("config_from").asText(""));
            if (from == null || !e.getValue().path("config_set").isObject()) continue;
            ObjectNode tree = from.deepCopy();
            for (var kv : e.getValue().get("config_set").properties())
                dev.kvlab.harness.api.run.ResolvedConfig.setDotted(
                        tree, kv.getKey(), kv.getValue().deepCopy());
            out.put(e.getKey(), tree);
        }
        return out;
    }

    /** Every file under {@code dir} except {@code manifest.json} and the writer's scratch files, sorted, with size and SHA-256. */
    public static ArrayNode files(Path dir) throws IOException {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (Path p : listFiles(dir)) {
            String rel = relative(dir, p);
            if (rel.equals(PartialBundle.MANIFEST)
                    || rel.equals(PartialBundle.LOCK)
                    || rel.equals(PartialBundle.RUN_STATE)) continue;
            ObjectNode o = out.addObject();
            o.put("path", rel);
            o.put("sha256", Sha256.of(p));
            o.put("bytes", Files.size(p));
        }
        return out;
    }

    static List<Path> listFiles(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> w = Files.walk(dir)) {
            w.filter(p -> !Files.isDirectory(p)).forEach(files::add);
        }
        files.sort((a, b) -> relative(dir, a).compareTo(relative(dir, b)));
        return files;
    }

    static String relative(Path dir, Path p) {
        return dir.relativize(p).toString().replace('\\', '/');
    }

    /** The field that seals the manifest: SHA-256 of the manifest's own bytes with this field's value all zeros. */
    public static final String SEAL = "manifest_sha256";

    private static final String ZEROS = "0".repeat(64);
    private static final java.util.regex.Pattern SEAL_FIELD =
            java.util.regex.Pattern.compile("\"" + SEAL + "\"\\s*:\\s*\"([0-9a-f]{64})\"");

    /**
     * The manifest's bytes, sealed: {@code manifest_sha256} (its last field) is the SHA-256 of these very bytes with
     * that value replaced by 64 zeros, so a change of any byte of manifest.json is detected too.
     */
    public static byte[] sealed(ObjectNode m) {
        m.remove(SEAL);
        m.put(SEAL, ZEROS);
        // one line of JSON: a search's manifest lists a few thousand runs and files (jq . prints it indented)
        String text = new String(BundleJson.compactFile(m), java.nio.charset.StandardCharsets.UTF_8);
        String digest = Sha256.of(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        m.put(SEAL, digest);
        return text.replace("\"" + SEAL + "\":\"" + ZEROS + "\"", "\"" + SEAL + "\":\"" + digest + "\"")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Null when {@code bytes} (a manifest.json) carries a valid seal, else what is wrong. */
    public static String checkSeal(byte[] bytes) {
        String text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        java.util.regex.Matcher mt = SEAL_FIELD.matcher(text);
        if (!mt.find()) return "no " + SEAL + " seal";
        String digest = mt.group(1);
        int at = mt.start(1);
        if (mt.find()) return SEAL + " appears twice";
        String zeroed = text.substring(0, at) + ZEROS + text.substring(at + 64);
        return Sha256.of(zeroed.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                        .equals(digest)
                ? null
                : "its bytes do not match its " + SEAL + " seal (the manifest was changed)";
    }
}
