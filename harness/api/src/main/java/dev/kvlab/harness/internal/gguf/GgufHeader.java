package dev.kvlab.harness.internal.gguf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A GGUF v3 header being built: metadata key/values in the order given, then tensor infos whose data offsets follow
 * one another, each padded to the alignment. {@link #encode()} gives the header bytes up to the aligned start of the
 * tensor data.
 */
final class GgufHeader {

    /** A tensor's name, ggml dimensions (ne0 first: the row length), ggml type and offset in the data section. */
    record Tensor(String name, long[] ne, int type, long offset, long bytes) {
        long elements() {
            long n = 1;
            for (long d : ne) n = Math.multiplyExact(n, d);
            return n;
        }
    }

    private final int alignment;
    private final List<byte[]> kvs = new ArrayList<>();
    private final List<Tensor> tensors = new ArrayList<>();
    private long dataBytes;

    GgufHeader(int alignment) {
        this.alignment = alignment;
    }

    int alignment() {
        return alignment;
    }

    List<Tensor> tensors() {
        return tensors;
    }

    /** Bytes of the data section, every tensor padded to the alignment. */
    long dataBytes() {
        return dataBytes;
    }

    GgufHeader u32(String key, int v) {
        return kv(key, GgufTypes.UINT32, 4, b -> b.putInt(v));
    }

    GgufHeader f32(String key, float v) {
        return kv(key, GgufTypes.FLOAT32, 4, b -> b.putFloat(v));
    }

    GgufHeader bool(String key, boolean v) {
        return kv(key, GgufTypes.BOOL, 1, b -> b.put((byte) (v ? 1 : 0)));
    }

    GgufHeader string(String key, String v) {
        byte[] s = utf8(v);
        return kv(key, GgufTypes.STRING, 8 + s.length, b -> putString(b, s));
    }

    GgufHeader strings(String key, List<String> values) {
        List<byte[]> enc = new ArrayList<>(values.size());
        int size = 12;
        for (String v : values) {
            byte[] s = utf8(v);
            enc.add(s);
            size = Math.addExact(size, 8 + s.length);
        }
        return kv(key, GgufTypes.ARRAY, size, b -> {
            b.putInt(GgufTypes.STRING).putLong(enc.size());
            for (byte[] s : enc) putString(b, s);
        });
    }

    GgufHeader f32s(String key, float[] values) {
        return kv(key, GgufTypes.ARRAY, 12 + 4 * values.length, b -> {
            b.putInt(GgufTypes.FLOAT32).putLong(values.length);
            for (float v : values) b.putFloat(v);
        });
    }

    GgufHeader i32s(String key, int[] values) {
        return kv(key, GgufTypes.ARRAY, 12 + 4 * values.length, b -> {
            b.putInt(GgufTypes.INT32).putLong(values.length);
            for (int v : values) b.putInt(v);
        });
    }

    /** Adds a tensor after the previous one; its offset is the data bytes so far. */
    Tensor tensor(String name, int type, long... ne) {
        int[] block = GgufTypes.tensorBlock(type);
        long n = 1;
        for (long d : ne) n = Math.multiplyExact(n, d);
        if (ne[0] % block[0] != 0)
            throw new IllegalArgumentException(name + ": row of " + ne[0] + " is not a multiple of " + block[0]);
        long bytes = Math.multiplyExact(n / block[0], (long) block[1]);
        Tensor t = new Tensor(name, ne.clone(), type, dataBytes, bytes);
        tensors.add(t);
        dataBytes = Math.addExact(dataBytes, pad(bytes, alignment));
        return t;
    }

    /** The header: magic, version, counts, metadata, tensor infos, zero padding to the alignment. */
    byte[] encode() {
        long size = 24;
        for (byte[] kv : kvs) size += kv.length;
        List<byte[]> names = new ArrayList<>(tensors.size());
        for (Tensor t : tensors) {
            byte[] n = utf8(t.name());
            names.add(n);
            size += 8 + n.length + 4 + 8L * t.ne().length + 4 + 8;
        }
        long padded = pad(size, alignment);
        if (padded > Integer.MAX_VALUE - 8)
            throw new IllegalStateException("GGUF header of " + padded + " bytes is too large");
        ByteBuffer b = ByteBuffer.allocate((int) padded).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(GgufTypes.MAGIC)
                .putInt(GgufTypes.VERSION)
                .putLong(tensors.size())
                .putLong(kvs.size());
        for (byte[] kv : kvs) b.put(kv);
        for (int i = 0; i < tensors.size(); i++) {
            Tensor t = tensors.get(i);
            putString(b, names.get(i));
            b.putInt(t.ne().length);
            for (long d : t.ne()) b.putLong(d);
            b.putInt(t.type()).putLong(t.offset());
        }
        return b.array();
    }

    static long pad(long n, int alignment) {
        return (n + alignment - 1) / alignment * alignment;
    }

    private interface Body {
        void put(ByteBuffer b);
    }

    private GgufHeader kv(String key, int type, int valueBytes, Body body) {
        byte[] k = utf8(key);
        ByteBuffer b = ByteBuffer.allocate(8 + k.length + 4 + valueBytes).order(ByteOrder.LITTLE_ENDIAN);
        putString(b, k);
        b.putInt(type);
        body.put(b);
        if (b.hasRemaining()) throw new IllegalStateException("value of " + key + " is shorter than announced");
        kvs.add(b.array());
        return this;
    }

    private static void putString(ByteBuffer b, byte[] s) {
        b.putLong(s.length).put(s);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
