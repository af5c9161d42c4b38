package dev.kvlab.harness.api.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.LocatedTree;
import dev.kvlab.harness.api.input.TreeBinder;
import java.nio.file.Files;
import java.nio.file.Path;

/** The paths a run config names (trace, transport profile, catalogs), made absolute when it is bound; missing files refused. */
final class ConfigPaths {

    private ConfigPaths() {}

    /** Resolves {@code workload.trace} and {@code catalog[]} against {@code baseDir}, then the working directory. */
    static void resolvePaths(LocatedTree t, Path baseDir) {
        JsonNode trace = t.root().at("/workload/trace");
        if (trace.isTextual()) {
            Path p = resolve(trace.asText(), baseDir, t, "/workload/trace", "workload.trace", "trace");
            ((ObjectNode) t.root().get("workload")).put("trace", p.toString());
        }
        JsonNode profile = t.root().get("transport_profile");
        if (profile != null && profile.isTextual()) {
            Path p = resolve(
                    profile.asText(), baseDir, t, "/transport_profile", "transport_profile", "transport profile");
            t.root().put("transport_profile", p.toString());
        }
        JsonNode tr = t.root().get("transport");
        if (tr != null
                && tr.isTextual()
                && (tr.asText().contains(".yaml") || tr.asText().contains(".yml"))) {
            String text = tr.asText().strip();
            int hash = text.lastIndexOf('#');
            String file = hash >= 0 ? text.substring(0, hash) : text;
            Path p = resolve(file, baseDir, t, "/transport", "transport", "transport profile");
            t.root().put("transport", p + (hash >= 0 ? text.substring(hash) : ""));
        }
        JsonNode cat = t.root().get("catalog");
        if (cat instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                if (!a.get(i).isTextual()) continue;
                Path p = resolve(a.get(i).asText(), baseDir, t, "/catalog/" + i, "catalog[" + i + "]", "catalog");
                a.set(i, JsonNodeFactory.instance.textNode(p.toString()));
            }
        }
    }

    private static Path resolve(String text, Path baseDir, LocatedTree t, String ptr, String key, String what) {
        if (text.isBlank()) throw new BadInputException(TreeBinder.where(t, ptr) + ": key '" + key + "': empty path");
        Path p = Path.of(text);
        if (p.isAbsolute()) {
            if (!Files.exists(p))
                throw new BadInputException(
                        TreeBinder.where(t, ptr) + ": key '" + key + "': no such " + what + " file " + p);
            return p.normalize();
        }
        if (baseDir != null) {
            Path b = baseDir.resolve(p).normalize();
            if (Files.exists(b)) return b.toAbsolutePath();
        }
        Path w = p.toAbsolutePath().normalize();
        if (Files.exists(w)) return w;
        throw new BadInputException(TreeBinder.where(t, ptr) + ": key '" + key + "': no such " + what + " file '" + text
                + "' (looked in " + (baseDir != null ? baseDir.resolve(p).normalize() + " and " : "") + w + ")");
    }
}
