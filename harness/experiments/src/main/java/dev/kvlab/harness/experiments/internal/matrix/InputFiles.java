package dev.kvlab.harness.experiments.internal.matrix;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.bundle.Sha256;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The input files of a run: every absolute path in a resolved config tree that names an existing file (traces,
 * catalog files, transport profiles; a directory counts as the files under it), plus kvlab's built-in defaults and
 * catalog, each with its SHA-256.
 */
final class InputFiles {

    private static final List<String> BUILTINS = List.of(
            "dev/kvlab/harness/config/defaults.yaml",
            "dev/kvlab/harness/catalog/models.yaml",
            "dev/kvlab/harness/catalog/hardware.yaml");

    private InputFiles() {}

    static void collect(JsonNode tree, Set<String> out) {
        if (tree == null) return;
        if (tree.isTextual()) {
            String s = tree.asText();
            if (s.startsWith("/") && s.length() < 4096) {
                Path p = Path.of(s);
                if (Files.isRegularFile(p)) out.add(p.normalize().toString());
                else if (Files.isDirectory(p)) {
                    try (Stream<Path> w = Files.walk(p, 4)) {
                        w.filter(Files::isRegularFile)
                                .sorted()
                                .limit(1000)
                                .forEach(f -> out.add(f.normalize().toString()));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
            return;
        }
        for (JsonNode c : tree) collect(c, out);
    }

    static MatrixSpec.Input hash(Path p) {
        try {
            return new MatrixSpec.Input(p.toString(), Sha256.of(p), Files.size(p));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read input " + p, e);
        }
    }

    static List<MatrixSpec.Input> builtins() {
        List<MatrixSpec.Input> out = new ArrayList<>();
        for (String r : BUILTINS) {
            try (InputStream in = InputFiles.class.getResourceAsStream("/" + r)) {
                if (in == null) continue;
                byte[] b = in.readAllBytes();
                out.add(new MatrixSpec.Input("builtin:" + r, Sha256.of(b), b.length));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }
}
