package dev.kvlab.transport.internal.tcp;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The tcp transport's wire format (documented in {@code transport/WIRE.md}): a 16-byte hello each way, then
 * 32-byte requests and 16-byte responses, all integers big-endian. The size of every response is determined by
 * its request, so an initiator never trusts a length it did not ask for; lengths on the wire are only checked.
 */
final class Wire {
    private Wire() {}

    static final int MAGIC = 0x4B564C54; // "KVLT"
    static final short VERSION = 1;
    static final int HELLO_BYTES = 16;
    static final int MAX_TOKEN_BYTES = 256;

    static final short HELLO_OK = 0;
    static final short HELLO_BAD_VERSION = 1;
    static final short HELLO_AUTH_FAILED = 2;

    static final int REQUEST_BYTES = 32;
    static final int RESPONSE_BYTES = 16;
    static final int OPEN_PAYLOAD_BYTES = 12;
    static final int MAX_SEGMENT_NAME_BYTES = 1024;

    static final byte OP_READ = 1;
    static final byte OP_WRITE = 2;
    static final byte OP_OPEN = 3;

    static final byte ST_OK = 0;
    static final byte ST_OUT_OF_BOUNDS = 1;
    static final byte ST_NO_SEGMENT = 2;
    static final byte ST_FAILED = 3;

    /** Writes a request header at the buffer's position. */
    static void putRequest(ByteBuffer b, byte op, int segment, long tag, long offset, int length) {
        b.put(op)
                .put((byte) 0)
                .putShort((short) 0)
                .putInt(segment)
                .putLong(tag)
                .putLong(offset)
                .putInt(length)
                .putInt(0);
    }

    /** Writes a response header at the buffer's position. */
    static void putResponse(ByteBuffer b, byte status, int length, long tag) {
        b.put(status).put((byte) 0).putShort((short) 0).putInt(length).putLong(tag);
    }

    static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) ch.write(b);
    }

    static void readFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) throw new EOFException("connection closed by the peer");
        }
    }

    /** Reads until the buffers hold {@code total} bytes (a scattering read per call). */
    static void readFully(SocketChannel ch, ByteBuffer[] bufs, long total) throws IOException {
        long got = 0;
        while (got < total) {
            long n = ch.read(bufs);
            if (n < 0) throw new EOFException("connection closed by the peer");
            got += n;
        }
    }

    /** Writes every byte of {@code bufs[0, count)} with gathering writes. */
    static void writeFully(SocketChannel ch, ByteBuffer[] bufs, int count) throws IOException {
        int first = 0;
        while (first < count) {
            ch.write(bufs, first, count - first);
            while (first < count && !bufs[first].hasRemaining()) first++;
        }
    }
}
