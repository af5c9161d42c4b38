package dev.kvlab.harness.internal.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.MatrixSpec;
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
    static ObjectNode build(String runId, MatrixSpec spec, List<CellRun> runs, Provenance prov, JsonNode state, Instant end, SummaryTable table) {
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
        Map<String, List<CellRun>> byCell = new java.util.LinkedHashMap<>();
        for (CellRun r : runs) byCell.computeIfAbsent(r.cell(), k -> new ArrayList<>()).add(r);
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
                ro.set("config", r.tree());
            }
        }
        Set<String> emulated = new LinkedHashSet<>();
        for (Map<String, Object> row : table.rows()) if (row.get(Columns.EMULATED_PARTS.name()) instanceof String s && !s.isBlank()) emulated.add(s);
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

    /** Every file under {@code dir} except {@code manifest.json} and the writer's scratch files, sorted, with size and SHA-256. */
    public static ArrayNode files(Path dir) throws IOException {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (Path p : listFiles(dir)) {
            String rel = relative(dir, p);
            if (rel.equals(PartialBundle.MANIFEST) || rel.equals(PartialBundle.LOCK) || rel.equals(PartialBundle.RUN_STATE)) continue;
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
    private static final java.util.regex.Pattern SEAL_FIELD = java.util.regex.Pattern.compile("\"" + SEAL + "\"\\s*:\\s*\"([0-9a-f]{64})\"");

    /**
     * The manifest's bytes, sealed: {@code manifest_sha256} (its last field) is the SHA-256 of these very bytes with
     * that value replaced by 64 zeros, so a change of any byte of manifest.json is detected too.
     */
    public static byte[] sealed(ObjectNode m) {
        m.remove(SEAL);
        m.put(SEAL, ZEROS);
        String text = new String(BundleJson.pretty(m), java.nio.charset.StandardCharsets.UTF_8);
        String digest = Sha256.of(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        m.put(SEAL, digest);
        return text.replace("\"" + SEAL + "\" : \"" + ZEROS + "\"", "\"" + SEAL + "\" : \"" + digest + "\"")
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
        return Sha256.of(zeroed.getBytes(java.nio.charset.StandardCharsets.UTF_8)).equals(digest) ? null
                : "its bytes do not match its " + SEAL + " seal (the manifest was changed)";
    }
}
