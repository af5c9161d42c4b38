package dev.kvlab.harness.internal.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.BadInputException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * Rewrites a finished bundle's {@code manifest.json} {@code files} list (path, SHA-256, bytes of every file but the
 * manifest, sorted by path) after files were replaced, atomically; everything else in the manifest stays.
 * Interim: the bundle writer's {@code Manifest.refresh} takes over once it lands.
 */
final class ManifestFiles {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ManifestFiles() {}

    static void refresh(Path bundle) {
        Path mf = bundle.resolve("manifest.json");
        JsonNode m = BundleData.readJson(mf);
        if (!(m instanceof ObjectNode o)) throw new BadInputException(mf + ": not a JSON object");
        ArrayNode files = o.putArray("files");
        try (Stream<Path> w = Files.walk(bundle)) {
            List<Path> all = w.filter(Files::isRegularFile).toList();
            all.stream().map(p -> bundle.relativize(p).toString().replace('\\', '/')).filter(r -> !r.equals("manifest.json")).sorted()
                    .forEach(r -> {
                        Path p = bundle.resolve(r);
                        files.addObject().put("path", r).put("sha256", sha256(p)).put("bytes", size(p));
                    });
            byte[] bytes = JSON.writeValueAsBytes(o);
            AtomicFiles.write(mf, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot refresh " + mf + ": " + e.getMessage(), e);
        }
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String sha256(Path p) {
        try (InputStream in = Files.newInputStream(p)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) md.update(buf, 0, n);
            return HexFormat.of().formatHex(md.digest());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + p, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
