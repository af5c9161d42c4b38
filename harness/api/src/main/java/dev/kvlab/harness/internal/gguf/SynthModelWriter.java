package dev.kvlab.harness.internal.gguf;

import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.SynthVocabulary;
import dev.kvlab.harness.api.gguf.WeightType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Writes a {@link SynthSpec} as a GGUF v3 Llama model llama.cpp loads: the metadata llama.cpp reads, the SPM
 * vocabulary of {@link SynthVocabulary}, norms of 1.0 (f32) and seeded uniform random weights of standard deviation
 * 0.02 (f16 or q8_0), streamed through a buffer in tensor order. The bytes depend on the spec alone (no timestamps):
 * one {@link SplittableRandom} seeded with the spec's seed is drawn from in tensor order. The file is written to a
 * hidden temporary sibling, fsynced and renamed into place.
 */
public final class SynthModelWriter {

    /** Half-width of the uniform distribution whose standard deviation is 0.02: 0.02 × √3. */
    static final float HALF_WIDTH = (float) (0.02 * Math.sqrt(3));

    static final String VOCABULARY_TAG = "kvlab-spm-words-v1";
    private static final int BUFFER = 1 << 20;

    /** What was written: the file, its size and SHA-256, and the weights in it. */
    public record Written(Path path, long bytes, String sha256, long parameters, int tensors) {}

    private SynthModelWriter() {}

    public static Written write(SynthSpec spec, Path out) throws IOException {
        GgufHeader header = header(spec);
        Path target = out.toAbsolutePath();
        Path dir = target.getParent();
        Files.createDirectories(dir);
        Path tmp = newSibling(dir, "." + target.getFileName() + ".", ".tmp");
        try {
            MessageDigest sha = sha256();
            long bytes;
            try (FileChannel ch =
                    FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ChannelSink sink = new ChannelSink(new DigestingChannel(ch, sha), BUFFER);
                sink.put(header.encode());
                SplittableRandom rng = new SplittableRandom(spec.seed());
                for (GgufHeader.Tensor t : header.tensors()) {
                    long start = sink.position();
                    switch (t.type()) {
                        case GgufTypes.GGML_F32 -> ones(sink, t.elements());
                        case GgufTypes.GGML_F16 -> f16(sink, t.elements(), rng);
                        case GgufTypes.GGML_Q8_0 -> q8_0(sink, t.elements(), rng);
                        default -> throw new IllegalStateException("type " + t.type());
                    }
                    if (sink.position() - start != t.bytes())
                        throw new IllegalStateException(
                                t.name() + ": wrote " + (sink.position() - start) + " of " + t.bytes() + " bytes");
                    sink.padTo(header.alignment());
                }
                sink.flush();
                bytes = sink.position();
                ch.force(true);
            }
            moveDurably(tmp, target, dir);
            long params = 0;
            for (GgufHeader.Tensor t : header.tensors()) params += t.elements();
            return new Written(
                    target,
                    bytes,
                    HexFormat.of().formatHex(sha.digest()),
                    params,
                    header.tensors().size());
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The metadata and tensor infos of {@code spec}'s file. */
    static GgufHeader header(SynthSpec spec) {
        SynthVocabulary vocab = spec.vocabulary();
        int n = vocab.vocabSize();
        List<String> tokens = new ArrayList<>(n);
        float[] scores = new float[n];
        int[] types = new int[n];
        for (int id = 0; id < n; id++) {
            tokens.add(vocab.token(id));
            scores[id] = vocab.score(id);
            types[id] = vocab.tokenType(id);
        }
        String a = "llama.";
        GgufHeader h = new GgufHeader(GgufTypes.DEFAULT_ALIGNMENT)
                .string("general.architecture", "llama")
                .string("general.name", spec.name())
                .u32("general.alignment", GgufTypes.DEFAULT_ALIGNMENT)
                .u32("general.file_type", spec.dtype().fileType());
        if (spec.dtype() == WeightType.Q8_0) h.u32("general.quantization_version", 2);
        h.u32(a + "context_length", spec.context())
                .u32(a + "embedding_length", spec.hidden())
                .u32(a + "block_count", spec.layers())
                .u32(a + "feed_forward_length", spec.ff())
                .u32(a + "attention.head_count", spec.heads())
                .u32(a + "attention.head_count_kv", spec.kvHeads())
                .u32(a + "rope.dimension_count", spec.headDim())
                .f32(a + "rope.freq_base", 10000f)
                .f32(a + "attention.layer_norm_rms_epsilon", 1e-5f)
                .u32(a + "vocab_size", n)
                .string("tokenizer.ggml.model", "llama")
                .strings("tokenizer.ggml.tokens", tokens)
                .f32s("tokenizer.ggml.scores", scores)
                .i32s("tokenizer.ggml.token_type", types)
                .u32("tokenizer.ggml.bos_token_id", SynthVocabulary.BOS_ID)
                .u32("tokenizer.ggml.eos_token_id", SynthVocabulary.EOS_ID)
                .u32("tokenizer.ggml.unknown_token_id", SynthVocabulary.UNK_ID)
                .bool("tokenizer.ggml.add_bos_token", true)
                .bool("tokenizer.ggml.add_eos_token", false)
                .bool("tokenizer.ggml.add_space_prefix", false)
                .string("kvlab.synth.vocabulary", VOCABULARY_TAG);
        int w = spec.dtype() == WeightType.F16 ? GgufTypes.GGML_F16 : GgufTypes.GGML_Q8_0;
        int f32 = GgufTypes.GGML_F32;
        long hid = spec.hidden(), kv = (long) spec.kvHeads() * spec.headDim(), ff = spec.ff();
        h.tensor("token_embd.weight", w, hid, n);
        for (int i = 0; i < spec.layers(); i++) {
            String b = "blk." + i + ".";
            h.tensor(b + "attn_norm.weight", f32, hid);
            h.tensor(b + "attn_q.weight", w, hid, hid);
            h.tensor(b + "attn_k.weight", w, hid, kv);
            h.tensor(b + "attn_v.weight", w, hid, kv);
            h.tensor(b + "attn_output.weight", w, hid, hid);
            h.tensor(b + "ffn_norm.weight", f32, hid);
            h.tensor(b + "ffn_gate.weight", w, hid, ff);
            h.tensor(b + "ffn_up.weight", w, hid, ff);
            h.tensor(b + "ffn_down.weight", w, ff, hid);
        }
        h.tensor("output_norm.weight", f32, hid);
        h.tensor("output.weight", w, hid, n);
        return h;
    }

    private static void ones(ChannelSink sink, long n) throws IOException {
        for (long left = n; left > 0; ) {
            int chunk = (int) Math.min(left, BUFFER / 4);
            ByteBuffer b = sink.ensure(chunk * 4);
            for (int i = 0; i < chunk; i++) b.putFloat(1f);
            left -= chunk;
        }
    }

    /** A uniform value in [-HALF_WIDTH, HALF_WIDTH) from 24 random bits. */
    private static float uniform(long bits24) {
        return ((int) bits24 * 0x1p-23f - 1f) * HALF_WIDTH;
    }

    private static void f16(ChannelSink sink, long n, SplittableRandom rng) throws IOException {
        for (long left = n; left > 0; ) {
            int chunk = (int) Math.min(left, BUFFER / 2) & ~1;
            if (chunk == 0) chunk = 1;
            ByteBuffer b = sink.ensure(chunk * 2);
            for (int i = 0; i + 1 < chunk; i += 2) {
                long r = rng.nextLong();
                b.putShort(Float.floatToFloat16(uniform(r >>> 40)));
                b.putShort(Float.floatToFloat16(uniform((r >>> 8) & 0xFFFFFF)));
            }
            if ((chunk & 1) == 1) b.putShort(Float.floatToFloat16(uniform(rng.nextLong() >>> 40)));
            left -= chunk;
        }
    }

    private static void q8_0(ChannelSink sink, long n, SplittableRandom rng) throws IOException {
        float[] x = new float[32];
        byte[] staged = new byte[34 * 1024];
        for (long blocks = n / 32; blocks > 0; ) {
            int batch = (int) Math.min(blocks, 1024);
            for (int k = 0; k < batch; k++) {
                float amax = 0;
                for (int i = 0; i < 32; i += 2) {
                    long r = rng.nextLong();
                    x[i] = uniform(r >>> 40);
                    x[i + 1] = uniform((r >>> 8) & 0xFFFFFF);
                    amax = Math.max(amax, Math.max(Math.abs(x[i]), Math.abs(x[i + 1])));
                }
                float d = amax / 127f;
                float id = d != 0 ? 1f / d : 0f;
                short h = Float.floatToFloat16(d);
                int o = 34 * k;
                staged[o] = (byte) h;
                staged[o + 1] = (byte) (h >> 8);
                for (int i = 0; i < 32; i++) {
                    float v = x[i] * id;
                    staged[o + 2 + i] = (byte) (int) (v + (v >= 0 ? 0.5f : -0.5f)); // round half away from zero
                }
            }
            sink.ensure(34 * batch).put(staged, 0, 34 * batch);
            blocks -= batch;
        }
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A new empty file in {@code dir} with a unique name, created as any file the user writes is (mode 0666 less the
     * process's umask, as a shell redirect gives), not with the owner-only mode of a temporary file: the model is
     * read by other tools and users (a llama-server), so it must not end up 0600.
     */
    private static Path newSibling(Path dir, String prefix, String suffix) throws IOException {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(
                System.nanoTime() ^ ProcessHandle.current().pid());
        for (int i = 0; ; i++) {
            Path p = dir.resolve(prefix + Long.toUnsignedString(rnd.nextLong(), 36) + suffix);
            try {
                return Files.createFile(p);
            } catch (java.nio.file.FileAlreadyExistsException e) {
                if (i > 100) throw e;
            }
        }
    }

    /** Renames {@code tmp} to {@code target} atomically (replacing it) and fsyncs their directory {@code dir}. */
    private static void moveDurably(Path tmp, Path target, Path dir) throws IOException {
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("the file system cannot rename " + tmp + " atomically", e);
        }
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // some file systems refuse to open directories for reading; nothing more can be done there
            if (!Files.isDirectory(dir)) throw e;
        }
    }
}
