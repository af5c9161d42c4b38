package dev.kvlab.harness.internal.gguf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.WritableByteChannel;

/** A little-endian write buffer in front of a channel; callers {@link #ensure} room before a run of puts. */
final class ChannelSink {

    private final WritableByteChannel channel;
    private final ByteBuffer buf;
    private long written;

    ChannelSink(WritableByteChannel channel, int capacity) {
        this.channel = channel;
        this.buf = ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The buffer, with at least {@code bytes} free (bytes at most its capacity). */
    ByteBuffer ensure(int bytes) throws IOException {
        if (buf.remaining() < bytes) flush();
        return buf;
    }

    void put(byte[] bytes) throws IOException {
        int off = 0;
        while (off < bytes.length) {
            ensure(1);
            int n = Math.min(buf.remaining(), bytes.length - off);
            buf.put(bytes, off, n);
            off += n;
        }
    }

    /** Zero bytes until the position is a multiple of {@code alignment}. */
    void padTo(int alignment) throws IOException {
        long pos = position();
        int n = (int) (GgufHeader.pad(pos, alignment) - pos);
        ByteBuffer b = ensure(n);
        for (int i = 0; i < n; i++) b.put((byte) 0);
    }

    long position() {
        return written + buf.position();
    }

    void flush() throws IOException {
        buf.flip();
        while (buf.hasRemaining()) written += channel.write(buf);
        buf.clear();
    }
}
