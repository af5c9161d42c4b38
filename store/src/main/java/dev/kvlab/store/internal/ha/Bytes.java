package dev.kvlab.store.internal.ha;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable byte buffer with varint writes, and {@link Reader} for reading one back. Not thread-safe. */
final class Bytes {

    private byte[] buf;
    private int len;

    Bytes(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    int length() {
        return len;
    }

    byte[] array() {
        return buf;
    }

    void clear() {
        len = 0;
    }

    byte[] copy(int from, int to) {
        return Arrays.copyOfRange(buf, from, to);
    }

    void write(int b) {
        if (len == buf.length) buf = Arrays.copyOf(buf, buf.length * 2);
        buf[len++] = (byte) b;
    }

    void write(byte[] b, int off, int n) {
        if (len + n > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
        System.arraycopy(b, off, buf, len, n);
        len += n;
    }

    void varLong(long v) {
        while ((v & ~0x7FL) != 0) {
            write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        write((int) v);
    }

    void int32(int v) {
        write(v >>> 24);
        write(v >>> 16);
        write(v >>> 8);
        write(v);
    }

    void string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        varLong(b.length);
        write(b, 0, b.length);
    }

    /** Reads what {@link Bytes} wrote; a short or malformed input is an {@link IllegalArgumentException}. */
    static final class Reader {
        private final byte[] b;
        private int pos;
        private final int end;

        Reader(byte[] b, int from, int to) {
            this.b = b;
            this.pos = from;
            this.end = to;
        }

        boolean more() {
            return pos < end;
        }

        int position() {
            return pos;
        }

        int u8() {
            if (pos >= end) throw new IllegalArgumentException("truncated record");
            return b[pos++] & 0xFF;
        }

        long varLong() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                int x = u8();
                v |= (long) (x & 0x7F) << shift;
                if ((x & 0x80) == 0) return v;
            }
            throw new IllegalArgumentException("malformed varint");
        }

        int varInt() {
            long v = varLong();
            if (v < 0 || v > Integer.MAX_VALUE) throw new IllegalArgumentException("count out of range: " + v);
            return (int) v;
        }

        int int32() {
            return (u8() << 24) | (u8() << 16) | (u8() << 8) | u8();
        }

        String string() {
            int n = varInt();
            if (n > end - pos) throw new IllegalArgumentException("truncated string");
            String s = new String(b, pos, n, StandardCharsets.UTF_8);
            pos += n;
            return s;
        }
    }
}
