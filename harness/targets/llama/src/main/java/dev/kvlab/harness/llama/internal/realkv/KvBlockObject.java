package dev.kvlab.harness.llama.internal.realkv;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * One block of a real engine's KV as a store object: a {@value #HEADER_BYTES}-byte header (magic, tokens, the
 * block's chained key, payload length, CRC32C of the payload) followed by the payload, llama.cpp's own K and V rows
 * of the block's positions ({@link dev.kvlab.harness.llama.internal.KvStateCodec}). The header lets the reader
 * verify, independently of the store's own checks, that the bytes are the block it asked for and intact.
 */
final class KvBlockObject {

    static final int HEADER_BYTES = 32;
    private static final int MAGIC = 0x4b56424b; // "KBVK" little-endian
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private KvBlockObject() {}

    /** Bytes of an object whose payload is {@code payloadBytes}. */
    static long objectBytes(long payloadBytes) {
        return HEADER_BYTES + payloadBytes;
    }

    /** The payload part of {@code object} (where the block's rows are copied before {@link #seal}). */
    static MemorySegment payload(MemorySegment object, long payloadBytes) {
        return object.asSlice(HEADER_BYTES, payloadBytes);
    }

    /** Writes the header of {@code object}, whose payload is in place. */
    static void seal(MemorySegment object, long key, int tokens, long payloadBytes) {
        seal(object, payload(object, payloadBytes), key, tokens);
    }

    /**
     * Writes a header for {@code payload} at the start of {@code header}: the same header as an object's, kept apart
     * from its payload (a PD handover's table of headers for the pieces of a sequence's state).
     */
    static void seal(MemorySegment header, MemorySegment payload, long key, int tokens) {
        header.set(I32, 0, MAGIC);
        header.set(I32, 4, tokens);
        header.set(I64, 8, key);
        header.set(I64, 16, payload.byteSize());
        header.set(I32, 24, crc(payload));
        header.set(I32, 28, 0);
    }

    /** Null when {@code object[0, length)} is block {@code key} of {@code tokens} tokens and {@code payloadBytes}, intact; else why not. */
    static String verify(MemorySegment object, long length, long key, int tokens, long payloadBytes) {
        if (length != objectBytes(payloadBytes))
            return "length " + length + ", a block object has " + objectBytes(payloadBytes);
        return verify(object, payload(object, payloadBytes), key, tokens);
    }

    /** Null when {@code header} ({@link #seal(MemorySegment, MemorySegment, long, int)}) is that of {@code payload}, intact; else why not. */
    static String verify(MemorySegment header, MemorySegment payload, long key, int tokens) {
        if (header.get(I32, 0) != MAGIC) return "not a KV block object (magic)";
        if (header.get(I32, 4) != tokens) return "block of " + header.get(I32, 4) + " tokens, want " + tokens;
        if (header.get(I64, 8) != key)
            return "the object holds block " + Long.toHexString(header.get(I64, 8)) + ", not " + Long.toHexString(key);
        if (header.get(I64, 16) != payload.byteSize())
            return "payload of " + header.get(I64, 16) + " bytes, want " + payload.byteSize();
        if (header.get(I32, 24) != crc(payload)) return "payload checksum mismatch";
        return null;
    }

    private static int crc(MemorySegment m) {
        CRC32C c = new CRC32C();
        c.update(m.asByteBuffer());
        return (int) c.getValue();
    }
}
