package dev.kvlab.harness.internal.realkv;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Where a real engine's KV blocks live in the store: every key names the model file's SHA-256, the KV dtype and the
 * block size, then the block's chained key (which the workload derives from the same namespace), so two models,
 * dtypes or block sizes never share a key.
 *
 * @param modelSha256 hex SHA-256 of the GGUF file
 * @param kvDtype     the context's KV dtype ({@code f16}, ...)
 * @param blockTokens tokens per block
 */
record KvNamespace(String modelSha256, String kvDtype, int blockTokens) {

    /** The store key of the block whose chained key is {@code blockKey}. */
    String key(long blockKey) {
        return "kv/" + modelSha256 + "/" + kvDtype + "/b" + blockTokens + "/" + Long.toHexString(blockKey);
    }

    /** The model id block keys are chained from. */
    String modelId() {
        return "gguf-sha256-" + modelSha256;
    }

    /** Hex SHA-256 of {@code file}'s bytes. */
    static String sha256(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 20];
            for (int n; (n = in.read(buf)) > 0; ) d.update(buf, 0, n);
            return HexFormat.of().formatHex(d.digest());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
