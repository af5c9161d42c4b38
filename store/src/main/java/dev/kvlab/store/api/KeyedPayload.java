package dev.kvlab.store.api;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The bytes a kvlab object must hold, derived from its key alone: 64-bit words {@code w[i] = s + i * φ} (φ the
 * odd golden-ratio constant) from a seed {@code s} that mixes a 64-bit hash of the key with the length, the
 * tail bytes from one more mixed word. Position-dependent and key-dependent, so that a payload written under one
 * key, truncated, shifted or bit-flipped never verifies under another; an arithmetic progression, so that
 * checking it costs one load, one compare and one add per word (memory speed, like CRC32C) rather than a hash
 * per word: every fetched block is checked on the measured path. Not a defence against a forger (the CRC32C
 * and the audit are separate checks). Writers {@link #fill} values; readers in verify mode {@link #matches}
 * what they got. Allocation-free.
 */
public final class KeyedPayload {

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private KeyedPayload() {}

    /** 64-bit FNV-1a of the key's UTF-8 bytes, finalised with a SplitMix64 mix. */
    public static long seed(String key) {
        long h = 0xcbf29ce484222325L;
        byte[] b = key.getBytes(StandardCharsets.UTF_8);
        for (byte x : b) {
            h ^= (x & 0xff);
            h *= 0x100000001b3L;
        }
        return mix(h);
    }

    /** Writes the content of {@code key} into {@code dst[offset, offset + length)}. */
    public static void fill(String key, MemorySegment dst, long offset, long length) {
        long seed = seed(key) ^ mix(length);
        long words = length >>> 3;
        long x = seed, end = offset + (words << 3);
        for (long o = offset; o < end; o += 8) {
            dst.set(LONG, o, x);
            x += GOLDEN;
        }
        long tail = mix(seed + words * GOLDEN);
        for (long j = words << 3; j < length; j++) {
            dst.set(BYTE, offset + j, (byte) tail);
            tail >>>= 8;
        }
    }

    /** Writes the content of {@code key} into the whole of {@code dst}. */
    public static void fill(String key, MemorySegment dst) {
        fill(key, dst, 0, dst.byteSize());
    }

    /** True when {@code src[offset, offset + length)} is exactly the content of {@code key} at that length. */
    public static boolean matches(String key, MemorySegment src, long offset, long length) {
        long seed = seed(key) ^ mix(length);
        long words = length >>> 3;
        long x = seed, end = offset + (words << 3);
        for (long o = offset; o < end; o += 8) {
            if (src.get(LONG, o) != x) return false;
            x += GOLDEN;
        }
        long tail = mix(seed + words * GOLDEN);
        for (long j = words << 3; j < length; j++) {
            if (src.get(BYTE, offset + j) != (byte) tail) return false;
            tail >>>= 8;
        }
        return true;
    }

    public static boolean matches(String key, MemorySegment src) {
        return matches(key, src, 0, src.byteSize());
    }

    /** A heap copy of the content, for tests and peers that want byte arrays. */
    public static byte[] bytes(String key, int length) {
        byte[] out = new byte[length];
        fill(key, MemorySegment.ofArray(out), 0, length);
        return out;
    }

    static long mix(long z) {
        z += GOLDEN;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
