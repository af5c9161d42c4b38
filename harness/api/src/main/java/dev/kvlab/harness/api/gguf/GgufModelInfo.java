package dev.kvlab.harness.api.gguf;

import dev.kvlab.harness.api.input.BadInputException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The shape of a model read from a GGUF file's header (any decoder architecture that uses llama.cpp's
 * {@code ARCH.block_count / embedding_length / attention.head_count[_kv]} keys), with the file's size and SHA-256.
 * KV heads default to the heads, key/value head dimensions to {@code hidden / heads} (as llama.cpp does).
 *
 * @param keyLength   head dimension of K ({@code ARCH.attention.key_length}, else hidden / heads)
 * @param valueLength head dimension of V ({@code ARCH.attention.value_length}, else the key length)
 * @param ff          feed-forward size, 0 when the file does not say
 * @param fileType    {@code general.file_type}, -1 when absent
 * @param synthVocab  whether the tokenizer is exactly kvlab's {@link SynthVocabulary} for this vocab size
 */
public record GgufModelInfo(Path path, String architecture, String name, int layers, int hidden, int heads, int kvHeads,
                            int keyLength, int valueLength, int ff, int vocab, long contextLength, int fileType,
                            long parameters, int tensors, long fileBytes, String sha256, boolean synthVocab) {

    /** Bytes of the KV cache at llama.cpp's default f16 cache type. */
    public static final int KV_DTYPE_BYTES = 2;

    /** Head dimension (of K). */
    public int headDim() {
        return keyLength;
    }

    /** KV bytes per token at an f16 cache: layers × kv_heads × (key + value head dims) × 2 (= layers × 2 × kv_heads × head_dim × 2). */
    public long kvBytesPerToken() {
        return (long) layers * kvHeads * ((long) keyLength + valueLength) * KV_DTYPE_BYTES;
    }

    /** The single-token words of a model synthesized by kvlab; empty for any other tokenizer. */
    public Optional<SynthVocabulary> vocabulary() {
        return synthVocab ? Optional.of(SynthVocabulary.of(vocab)) : Optional.empty();
    }

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
        int vocab = m.containsKey(p + "vocab_size") ? positive(c, p + "vocab_size", null)
                : tokens instanceof List<?> l ? l.size() : 0;
        long context = m.get(p + "context_length") instanceof Long l ? l : 0;
        int fileType = m.get("general.file_type") instanceof Long l ? l.intValue() : -1;
        String name = m.get("general.name") instanceof String s ? s : "";
        long params = 0;
        for (GgufReader.TensorInfo t : c.tensors()) params = Math.addExact(params, t.elements());
        boolean synth = isSynthVocabulary(m, vocab);
        return new GgufModelInfo(file, arch, name, layers, hidden, heads, kvHeads, keyLength, valueLength, ff, vocab, context,
                fileType, params, c.tensors().size(), c.fileBytes(), sha256(file), synth);
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

    /** This file's facts as {@code kvlab plan --gguf} reports them, in order. */
    public Map<String, Object> facts() {
        GgufModelInfo info = this;
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("gguf", info.path().toString());
        o.put("model", info.name().isEmpty() ? null : info.name());
        o.put("architecture", info.architecture());
        o.put("layers", info.layers());
        o.put("hidden", info.hidden());
        o.put("heads", info.heads());
        o.put("kv_heads", info.kvHeads());
        o.put("head_dim", info.headDim());
        o.put("ff", info.ff());
        o.put("vocab", info.vocab());
        o.put("context_length", info.contextLength());
        o.put("parameters", info.parameters());
        o.put("file_type", info.fileType());
        o.put("file_bytes", info.fileBytes());
        o.put("sha256", info.sha256());
        o.put("single_token_words", info.vocabulary().map(v -> v.wordCount()).orElse(null));
        return o;
    }
}
