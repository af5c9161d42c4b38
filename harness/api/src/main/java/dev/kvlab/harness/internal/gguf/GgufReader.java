package dev.kvlab.harness.internal.gguf;

import dev.kvlab.harness.api.input.BadInputException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a GGUF (v2 or v3) file's header: metadata and tensor infos, checking every length against the file's size
 * and that each tensor of a known type lies inside the file. Anything wrong is a {@link BadInputException} naming the
 * file and what is wrong. Tensor data is not read.
 */
final class GgufReader {

    /** A tensor info: name, ggml dimensions (ne0 first), ggml type, offset in the data section. */
    public record TensorInfo(String name, long[] ne, int type, long offset) {
        public long elements() {
            long n = 1;
            for (long d : ne) n = Math.multiplyExact(n, d);
            return n;
        }
    }

    /**
     * A parsed header. Metadata values: {@code Long} (integers), {@code Double} (floats), {@code Boolean},
     * {@code String}, or a {@code List} of those for arrays.
     */
    public record Contents(
            Path path,
            int version,
            Map<String, Object> metadata,
            List<TensorInfo> tensors,
            int alignment,
            long dataOffset,
            long fileBytes) {}

    private static final int MAX_DIMS = 4;

    private final Path path;
    private final FileChannel ch;
    private final long size;
    private final ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
    private long pos; // file position of buf's position

    private GgufReader(Path path, FileChannel ch) throws IOException {
        this.path = path;
        this.ch = ch;
        this.size = ch.size();
        buf.limit(0);
    }

    public static Contents read(Path file) throws IOException {
        if (Files.isDirectory(file)) throw bad(file, "is a directory, not a GGUF file");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return new GgufReader(file, ch).contents();
        } catch (NoSuchFileException e) {
            throw new BadInputException(file + ": no such file");
        } catch (EOFException e) {
            throw bad(file, "truncated: the file ends inside its header (" + e.getMessage() + ")");
        } catch (ArithmeticException e) {
            throw bad(file, "not a GGUF file: sizes overflow 64 bits");
        }
    }

    private Contents contents() throws IOException {
        if (size < 24) {
            if (size >= 4 && i32Peek() == GgufTypes.MAGIC)
                throw bad(path, "truncated: " + size + " bytes, shorter than a GGUF header");
            throw bad(path, "not a GGUF file (" + size + " bytes, no GGUF magic)");
        }
        int magic = i32();
        if (magic != GgufTypes.MAGIC)
            throw bad(
                    path,
                    "not a GGUF file: it starts with 0x" + Integer.toHexString(Integer.reverseBytes(magic))
                            + ", not \"GGUF\"");
        int version = i32();
        if (version != 2 && version != 3)
            throw bad(path, "GGUF version " + Integer.toUnsignedString(version) + " is not supported (2 or 3)");
        long nTensors = i64();
        long nKv = i64();
        if (nTensors < 0 || nTensors > size / 24)
            throw bad(path, "corrupt header: " + Long.toUnsignedString(nTensors) + " tensors in " + size + " bytes");
        if (nKv < 0 || nKv > size / 13)
            throw bad(
                    path, "corrupt header: " + Long.toUnsignedString(nKv) + " metadata entries in " + size + " bytes");
        Map<String, Object> meta = new LinkedHashMap<>();
        for (long i = 0; i < nKv; i++) {
            String key = string();
            int type = i32();
            if (meta.put(key, value(type, key)) != null) throw bad(path, "metadata key '" + key + "' appears twice");
        }
        int alignment = GgufTypes.DEFAULT_ALIGNMENT;
        if (meta.get("general.alignment") instanceof Long a) {
            if (a <= 0 || a > (1 << 30) || (a & (a - 1)) != 0)
                throw bad(path, "general.alignment " + a + " is not a power of 2");
            alignment = a.intValue();
        }
        List<TensorInfo> tensors = new ArrayList<>((int) nTensors);
        for (long i = 0; i < nTensors; i++) {
            String name = string();
            int nDims = i32();
            if (nDims < 1 || nDims > MAX_DIMS)
                throw bad(
                        path,
                        "tensor '" + name + "' has " + Integer.toUnsignedString(nDims) + " dimensions (1.." + MAX_DIMS
                                + ")");
            long[] ne = new long[nDims];
            for (int d = 0; d < nDims; d++) {
                ne[d] = i64();
                if (ne[d] < 0) throw bad(path, "tensor '" + name + "' has a negative dimension");
            }
            int type = i32();
            long offset = i64();
            if (offset < 0 || offset % alignment != 0)
                throw bad(
                        path,
                        "tensor '" + name + "' offset " + Long.toUnsignedString(offset) + " is not aligned to "
                                + alignment);
            tensors.add(new TensorInfo(name, ne, type, offset));
        }
        long dataOffset = nTensors > 0 ? GgufHeader.pad(pos, alignment) : pos;
        for (TensorInfo t : tensors) {
            int[] block = GgufTypes.tensorBlock(t.type());
            if (block == null) continue; // a type kvlab does not size: not checked
            long bytes = Math.multiplyExact(t.elements() / block[0], (long) block[1]);
            long end = Math.addExact(Math.addExact(dataOffset, t.offset()), bytes);
            if (end > size)
                throw bad(
                        path,
                        "truncated: tensor '" + t.name() + "' ends at byte " + end + " but the file has " + size
                                + " bytes");
        }
        return new Contents(
                path, version, Collections.unmodifiableMap(meta), List.copyOf(tensors), alignment, dataOffset, size);
    }

    private Object value(int type, String key) throws IOException {
        return switch (type) {
            case GgufTypes.UINT8 -> (long) (byte1() & 0xFF);
            case GgufTypes.INT8 -> (long) byte1();
            case GgufTypes.UINT16 -> (long) (i16() & 0xFFFF);
            case GgufTypes.INT16 -> (long) i16();
            case GgufTypes.UINT32 -> Integer.toUnsignedLong(i32());
            case GgufTypes.INT32 -> (long) i32();
            case GgufTypes.UINT64, GgufTypes.INT64 -> i64();
            case GgufTypes.FLOAT32 -> (double) Float.intBitsToFloat(i32());
            case GgufTypes.FLOAT64 -> Double.longBitsToDouble(i64());
            case GgufTypes.BOOL -> byte1() != 0;
            case GgufTypes.STRING -> string();
            case GgufTypes.ARRAY -> array(key);
            default -> throw bad(path, "metadata key '" + key + "' has unknown type " + Integer.toUnsignedString(type));
        };
    }

    private List<Object> array(String key) throws IOException {
        int type = i32();
        long n = i64();
        int min = type == GgufTypes.STRING ? 8 : type == GgufTypes.ARRAY ? 12 : GgufTypes.scalarBytes(type);
        if (min < 0)
            throw bad(path, "metadata array '" + key + "' has unknown element type " + Integer.toUnsignedString(type));
        if (n < 0 || n > (size - pos) / min)
            throw new EOFException("array '" + key + "' of " + Long.toUnsignedString(n) + " elements");
        List<Object> out = new ArrayList<>((int) n);
        for (long i = 0; i < n; i++) out.add(value(type, key));
        return Collections.unmodifiableList(out);
    }

    private String string() throws IOException {
        long n = i64();
        if (n < 0 || n > size - pos)
            throw new EOFException("a string of " + Long.toUnsignedString(n) + " bytes at byte " + pos);
        if (n > (1 << 24)) throw bad(path, "corrupt header: a string of " + n + " bytes at byte " + pos);
        byte[] b = new byte[(int) n];
        int off = 0;
        while (off < b.length) {
            need(1);
            int k = Math.min(buf.remaining(), b.length - off);
            buf.get(b, off, k);
            off += k;
            pos += k;
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(ByteBuffer.wrap(b))
                    .toString();
        } catch (CharacterCodingException e) {
            throw bad(path, "corrupt header: a string at byte " + (pos - n) + " is not UTF-8");
        }
    }

    private byte byte1() throws IOException {
        need(1);
        pos += 1;
        return buf.get();
    }

    private short i16() throws IOException {
        need(2);
        pos += 2;
        return buf.getShort();
    }

    private int i32() throws IOException {
        need(4);
        pos += 4;
        return buf.getInt();
    }

    private long i64() throws IOException {
        need(8);
        pos += 8;
        return buf.getLong();
    }

    private int i32Peek() throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        ch.read(b, 0);
        return b.flip().getInt();
    }

    private void need(int n) throws IOException {
        if (buf.remaining() >= n) return;
        buf.compact();
        while (buf.position() < n) {
            if (ch.read(buf) < 0) {
                buf.flip();
                throw new EOFException("at byte " + pos + " of " + size);
            }
        }
        buf.flip();
    }

    static BadInputException bad(Path file, String reason) {
        return new BadInputException(file + ": " + reason);
    }
}
