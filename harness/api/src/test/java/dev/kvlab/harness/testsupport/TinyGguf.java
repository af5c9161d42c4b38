package dev.kvlab.harness.testsupport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A minimal GGUF (v3) writer for tests: a llama-architecture model with random f16 weights and a SentencePiece-style
 * vocabulary (control tokens, 256 byte tokens, then letters and made-up words). Enough for llama.cpp to load it,
 * tokenize text and decode; nothing a user sees. {@code main(out, layers, hidden, heads, kvHeads, ff, vocab)} writes
 * one for manual runs.
 */
public final class TinyGguf {

    /** The model's shape. */
    public record Shape(int layers, int hidden, int heads, int kvHeads, int ff, int vocab, int context) {
        public static Shape tiny() {
            return new Shape(2, 64, 4, 2, 128, 320, 256);
        }

        int headDim() {
            return hidden / heads;
        }
        /** KV bytes per token with an f16 cache: layers × 2 × kv heads × head dim × 2. */
        public long kvBytesPerToken() {
            return (long) layers * 2 * kvHeads * headDim() * 2;
        }
    }

    private static final int ALIGN = 32;
    private static final int T_U32 = 4, T_I32 = 5, T_F32 = 6, T_BOOL = 7, T_STRING = 8, T_ARRAY = 9;
    private static final int GGML_F32 = 0, GGML_F16 = 1;

    private record Tensor(String name, long[] dims, int type, float scale) {
        long elements() {
            long n = 1;
            for (long d : dims) n *= d;
            return n;
        }

        long bytes() {
            return elements() * (type == GGML_F16 ? 2 : 4);
        }
    }

    public static void main(String[] args) throws IOException {
        Shape s = new Shape(
                Integer.parseInt(args[1]),
                Integer.parseInt(args[2]),
                Integer.parseInt(args[3]),
                Integer.parseInt(args[4]),
                Integer.parseInt(args[5]),
                Integer.parseInt(args[6]),
                4096);
        write(Path.of(args[0]), s, 42);
    }

    public static void write(Path out, Shape s, long seed) throws IOException {
        int kvDim = s.kvHeads() * s.headDim();
        List<Tensor> tensors = new ArrayList<>();
        tensors.add(new Tensor("token_embd.weight", new long[] {s.hidden(), s.vocab()}, GGML_F16, 1.0f));
        tensors.add(new Tensor("output_norm.weight", new long[] {s.hidden()}, GGML_F32, 0));
        for (int i = 0; i < s.layers(); i++) {
            String b = "blk." + i + ".";
            float in = (float) (1 / Math.sqrt(s.hidden())), inFf = (float) (1 / Math.sqrt(s.ff()));
            tensors.add(new Tensor(b + "attn_norm.weight", new long[] {s.hidden()}, GGML_F32, 0));
            tensors.add(new Tensor(b + "attn_q.weight", new long[] {s.hidden(), s.hidden()}, GGML_F16, in));
            tensors.add(new Tensor(b + "attn_k.weight", new long[] {s.hidden(), kvDim}, GGML_F16, in));
            tensors.add(new Tensor(b + "attn_v.weight", new long[] {s.hidden(), kvDim}, GGML_F16, in));
            tensors.add(new Tensor(b + "attn_output.weight", new long[] {s.hidden(), s.hidden()}, GGML_F16, in));
            tensors.add(new Tensor(b + "ffn_norm.weight", new long[] {s.hidden()}, GGML_F32, 0));
            tensors.add(new Tensor(b + "ffn_gate.weight", new long[] {s.hidden(), s.ff()}, GGML_F16, in));
            tensors.add(new Tensor(b + "ffn_up.weight", new long[] {s.hidden(), s.ff()}, GGML_F16, in));
            tensors.add(new Tensor(b + "ffn_down.weight", new long[] {s.ff(), s.hidden()}, GGML_F16, inFf));
        }
        Buf h = new Buf();
        h.raw("GGUF".getBytes(StandardCharsets.US_ASCII)).u32(3).u64(tensors.size());
        List<String> tokens = vocabulary(s.vocab());
        int kvCount = 0;
        Buf kv = new Buf();
        kv.str("general.architecture").u32(T_STRING).str("llama");
        kvCount++;
        kv.str("general.name").u32(T_STRING).str("kvlab-test-tiny");
        kvCount++;
        kv.str("llama.context_length").u32(T_U32).u32(s.context());
        kvCount++;
        kv.str("llama.embedding_length").u32(T_U32).u32(s.hidden());
        kvCount++;
        kv.str("llama.block_count").u32(T_U32).u32(s.layers());
        kvCount++;
        kv.str("llama.feed_forward_length").u32(T_U32).u32(s.ff());
        kvCount++;
        kv.str("llama.attention.head_count").u32(T_U32).u32(s.heads());
        kvCount++;
        kv.str("llama.attention.head_count_kv").u32(T_U32).u32(s.kvHeads());
        kvCount++;
        kv.str("llama.rope.dimension_count").u32(T_U32).u32(s.headDim());
        kvCount++;
        kv.str("llama.attention.layer_norm_rms_epsilon").u32(T_F32).f32(1e-5f);
        kvCount++;
        kv.str("general.file_type").u32(T_U32).u32(1);
        kvCount++;
        kv.str("tokenizer.ggml.model").u32(T_STRING).str("llama");
        kvCount++;
        kv.str("tokenizer.ggml.tokens").u32(T_ARRAY).u32(T_STRING).u64(tokens.size());
        for (String t : tokens) kv.str(t);
        kvCount++;
        kv.str("tokenizer.ggml.scores").u32(T_ARRAY).u32(T_F32).u64(tokens.size());
        for (int i = 0; i < tokens.size(); i++) kv.f32(i < 259 ? 0f : -(float) i);
        kvCount++;
        kv.str("tokenizer.ggml.token_type").u32(T_ARRAY).u32(T_I32).u64(tokens.size());
        for (int i = 0; i < tokens.size(); i++) kv.u32(i == 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1);
        kvCount++;
        kv.str("tokenizer.ggml.bos_token_id").u32(T_U32).u32(1);
        kvCount++;
        kv.str("tokenizer.ggml.eos_token_id").u32(T_U32).u32(2);
        kvCount++;
        kv.str("tokenizer.ggml.unknown_token_id").u32(T_U32).u32(0);
        kvCount++;
        kv.str("tokenizer.ggml.add_bos_token").u32(T_BOOL).u8(1);
        kvCount++;
        h.u64(kvCount).raw(kv.bytes());
        long offset = 0;
        for (Tensor t : tensors) {
            h.str(t.name()).u32(t.dims().length);
            for (long d : t.dims()) h.u64(d);
            h.u32(t.type()).u64(offset);
            offset = align(offset + t.bytes());
        }
        while (h.size() % ALIGN != 0) h.u8(0);
        SplittableRandom rnd = new SplittableRandom(seed);
        try (FileChannel ch = FileChannel.open(
                out, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            writeAll(ch, ByteBuffer.wrap(h.bytes()));
            ByteBuffer buf = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
            for (Tensor t : tensors) {
                long n = t.elements();
                for (long i = 0; i < n; i++) {
                    if (buf.remaining() < 4) {
                        buf.flip();
                        writeAll(ch, buf);
                        buf.clear();
                    }
                    if (t.type() == GGML_F32) buf.putFloat(1.0f);
                    else buf.putShort(Float.floatToFloat16((float) ((rnd.nextDouble() * 2 - 1) * t.scale() * 1.7)));
                }
                long pad = align(t.bytes()) - t.bytes();
                for (long i = 0; i < pad; i++) {
                    if (!buf.hasRemaining()) {
                        buf.flip();
                        writeAll(ch, buf);
                        buf.clear();
                    }
                    buf.put((byte) 0);
                }
            }
            buf.flip();
            writeAll(ch, buf);
        }
    }

    /** {@code <unk> <s> </s>}, the 256 byte tokens, then single letters with and without the word mark, then words. */
    static List<String> vocabulary(int size) {
        List<String> v = new ArrayList<>(List.of("<unk>", "<s>", "</s>"));
        for (int b = 0; b < 256; b++) v.add(String.format("<0x%02X>", b));
        String letters = "abcdefghijklmnopqrstuvwxyz";
        for (char c : letters.toCharArray()) {
            v.add("\u2581" + c);
            v.add(String.valueOf(c));
        }
        v.add("\u2581");
        for (int i = 0; v.size() < size; i++) {
            String w = "" + letters.charAt(i % 26) + letters.charAt((i / 26) % 26)
                    + (i >= 676 ? Integer.toString(i / 676) : "");
            v.add("\u2581" + w);
            if (v.size() < size) v.add(w);
        }
        return v.subList(0, size);
    }

    private static long align(long x) {
        return (x + ALIGN - 1) / ALIGN * ALIGN;
    }

    private static void writeAll(FileChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) ch.write(b);
    }

    /** A growable little-endian byte buffer. */
    private static final class Buf {
        private ByteBuffer b = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);

        private Buf room(int n) {
            if (b.remaining() < n) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(b.capacity() * 2, b.position() + n))
                        .order(ByteOrder.LITTLE_ENDIAN);
                b.flip();
                bigger.put(b);
                b = bigger;
            }
            return this;
        }

        Buf u8(int v) {
            room(1).b.put((byte) v);
            return this;
        }

        Buf u32(int v) {
            room(4).b.putInt(v);
            return this;
        }

        Buf u64(long v) {
            room(8).b.putLong(v);
            return this;
        }

        Buf f32(float v) {
            room(4).b.putFloat(v);
            return this;
        }

        Buf raw(byte[] v) {
            room(v.length).b.put(v);
            return this;
        }

        Buf str(String s) {
            byte[] u = s.getBytes(StandardCharsets.UTF_8);
            return u64(u.length).raw(u);
        }

        int size() {
            return b.position();
        }

        byte[] bytes() {
            byte[] out = new byte[b.position()];
            b.duplicate().flip().get(out);
            return out;
        }
    }
}
