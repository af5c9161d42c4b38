package dev.kvlab.harness.internal.gguf;

import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.gguf.SynthVocabulary;
import dev.kvlab.harness.api.input.BadInputException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Reads a {@link GgufModelInfo} from a GGUF file: its header's shape keys ({@code ARCH.block_count / embedding_length /
 * attention.head_count[_kv]}, ...), its tensors' weights, whether its tokenizer is kvlab's {@link SynthVocabulary}, and
 * the file's size and SHA-256.
 */
public final class GgufModelReader {

    private GgufModelReader() {}

    /** Reads {@code file}'s header and hashes the file; a missing, truncated or non-GGUF file is a {@link BadInputException}. */
    public static GgufModelInfo read(Path file) throws IOException {
        GgufReader.Contents c = GgufReader.read(file);
        Map<String, Object> m = c.metadata();
        String arch = str(c, "general.architecture");
        String p = arch + ".";
        int layers = positive(c, p + "block_count", null);
        int hidden = positive(c, p + "embedding_length", null);
        int heads = positive(c, p + "attention.head_count", null);
        int kvHeads = positive(c, p + "attention.head_count_kv", heads);
        if (hidden % heads != 0 && !m.containsKey(p + "attention.key_length"))
            throw bad(c, "embedding_length " + hidden + " is not divisible by head_count " + heads);
        int keyLength = positive(c, p + "attention.key_length", hidden / heads);
        int valueLength = positive(c, p + "attention.value_length", keyLength);
        int ff = m.containsKey(p + "feed_forward_length") ? positive(c, p + "feed_forward_length", null) : 0;
        Object tokens = m.get("tokenizer.ggml.tokens");
        int vocab = m.containsKey(p + "vocab_size")
                ? positive(c, p + "vocab_size", null)
                : tokens instanceof List<?> l ? l.size() : 0;
        long context = m.get(p + "context_length") instanceof Long l ? l : 0;
        int fileType = m.get("general.file_type") instanceof Long l ? l.intValue() : -1;
        String name = m.get("general.name") instanceof String s ? s : "";
        long params = 0;
        for (GgufReader.TensorInfo t : c.tensors()) params = Math.addExact(params, t.elements());
        boolean synth = isSynthVocabulary(m, vocab);
        return new GgufModelInfo(
                file,
                arch,
                name,
                layers,
                hidden,
                heads,
                kvHeads,
                keyLength,
                valueLength,
                ff,
                vocab,
                context,
                fileType,
                params,
                c.tensors().size(),
                c.fileBytes(),
                sha256(file),
                synth);
    }

    private static boolean isSynthVocabulary(Map<String, Object> m, int vocab) {
        if (!"llama".equals(m.get("tokenizer.ggml.model")) || vocab < SynthVocabulary.MIN_VOCAB) return false;
        if (!(m.get("tokenizer.ggml.tokens") instanceof List<?> tokens) || tokens.size() != vocab) return false;
        if (!Boolean.FALSE.equals(m.get("tokenizer.ggml.add_space_prefix"))) return false;
        SynthVocabulary v = SynthVocabulary.of(vocab);
        for (int id = 0; id < vocab; id++) if (!v.token(id).equals(tokens.get(id))) return false;
        return true;
    }

    private static String str(GgufReader.Contents c, String key) {
        if (!(c.metadata().get(key) instanceof String s)) throw bad(c, key + " is missing (not a model file?)");
        return s;
    }

    private static int positive(GgufReader.Contents c, String key, Integer dflt) {
        Object v = c.metadata().get(key);
        if (v == null && dflt != null) return dflt;
        if (v == null) throw bad(c, key + " is missing");
        if (v instanceof List<?>) throw bad(c, key + " is a per-layer array; kvlab reads only uniform models");
        if (!(v instanceof Long l)) throw bad(c, key + " is not an integer: " + v);
        if (l <= 0 || l > Integer.MAX_VALUE) throw bad(c, key + " = " + l + " is out of range");
        return l.intValue();
    }

    private static BadInputException bad(GgufReader.Contents c, String reason) {
        return new BadInputException(c.path() + ": " + reason);
    }

    private static String sha256(Path file) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buf)) > 0; ) md.update(buf, 0, n);
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
