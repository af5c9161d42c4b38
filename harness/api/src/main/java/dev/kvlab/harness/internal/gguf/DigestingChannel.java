package dev.kvlab.harness.internal.gguf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.security.MessageDigest;

/** A channel that feeds every byte it writes to a digest. */
final class DigestingChannel implements WritableByteChannel {

    private final WritableByteChannel out;
    private final MessageDigest digest;

    DigestingChannel(WritableByteChannel out, MessageDigest digest) {
        this.out = out;
        this.digest = digest;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        ByteBuffer view = src.duplicate();
        int n = out.write(src);
        view.limit(view.position() + n);
        digest.update(view);
        return n;
    }

    @Override
    public boolean isOpen() {
        return out.isOpen();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
