package dev.kvlab.transport.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransferStatus;
import dev.kvlab.transport.api.TransportConfig;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The tcp transport's initiator against a hostile target: a fake server answers the OPEN connection and the data
 * connection with the fuzzer's bytes (optionally after a valid hello / OPEN answer) and closes. Whatever it sends,
 * opening fails with a {@link TransferException} or succeeds, and a READ batch completes within its timeout:
 * either every slice OK with exactly the bytes the server sent for it, or failed with a {@link TransferException}
 * and no status OK left on a failed request. Bytes never land outside the requested range of the caller's buffer.
 *
 * <p>Fuzz for real: {@code JAZZER_FUZZ=1 mvn -pl transport test -Dtest=TcpClientFuzzTest -Djazzer.max_duration=10m}.
 */
class TcpClientFuzzTest {

    private static final int SLICE = 1024;
    private static final int SEG_BYTES = 1 << 20;
    private static final TransportConfig CONFIG = TransportConfig.defaults()
            .withTimeout(Duration.ofSeconds(2))
            .withConnectionsPerPeer(1)
            .withSliceSize(SLICE)
            .withMaxFrameBytes(4096);
    private static ServerSocketChannel server;
    private static int port;
    private static volatile byte[] openReply = new byte[0], dataReply = new byte[0];
    private static Thread acceptor;

    @BeforeAll
    static void start() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        port = ((InetSocketAddress) server.getLocalAddress()).getPort();
        acceptor = Thread.ofPlatform().daemon().name("fuzz-fake-target").start(TcpClientFuzzTest::serve);
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
    }

    /** The first connection of an input is the OPEN one, the next the data connection; each gets its bytes, then EOF. */
    private static void serve() {
        int k = 0;
        while (true) {
            try (SocketChannel c = server.accept()) {
                byte[] reply = (k++ % 2 == 0) ? openReply : dataReply;
                ByteBuffer hello = ByteBuffer.allocate(Wire.HELLO_BYTES);
                c.socket().setSoTimeout(2000);
                Wire.readFully(c, hello);
                Wire.writeFully(c, ByteBuffer.wrap(reply));
                c.shutdownOutput();
                // drain what the client sends until it closes, so its writes never block
                ByteBuffer sink = ByteBuffer.allocate(8192);
                c.configureBlocking(true);
                long until = System.nanoTime() + 3_000_000_000L;
                while (System.nanoTime() < until) {
                    sink.clear();
                    if (c.read(sink) < 0) break;
                }
            } catch (IOException e) {
                if (!server.isOpen()) return;
            }
        }
    }

    private static byte[] validHello() {
        return ByteBuffer.allocate(16)
                .putInt(Wire.MAGIC)
                .putShort(Wire.VERSION)
                .putShort(Wire.HELLO_OK)
                .putInt(4096 - 32)
                .putInt(0)
                .array();
    }

    @FuzzTest(maxDuration = "5m")
    void hostileTargetBytes(FuzzedDataProvider data) throws Exception {
        allowLoopback();
        boolean goodHello = data.consumeBoolean(),
                goodOpen = data.consumeBoolean(),
                goodDataHello = data.consumeBoolean();
        int slices = data.consumeInt(1, 4);
        int offset = data.consumeInt(0, 64);
        ByteBuffer open = ByteBuffer.allocate(16 + 28 + 64);
        if (goodHello) open.put(validHello());
        if (goodOpen) {
            Wire.putResponse(open, Wire.ST_OK, Wire.OPEN_PAYLOAD_BYTES, 1);
            open.putInt(7).putLong(SEG_BYTES);
        }
        open.put(data.consumeBytes(goodHello && goodOpen ? 0 : 64));
        byte[] openBytes = java.util.Arrays.copyOf(open.array(), open.position());
        byte[] tail = data.consumeRemainingAsBytes();
        byte[] dataBytes = goodDataHello
                ? ByteBuffer.allocate(16 + tail.length)
                        .put(validHello())
                        .put(tail)
                        .array()
                : tail;
        openReply = openBytes;
        dataReply = dataBytes;

        try (TransferEngine e = Transports.discover().create("tcp", CONFIG)) {
            RemoteSegment r;
            try {
                r = e.openSegment(new SegmentHandle("tcp", "127.0.0.1:" + port, "fuzz", SEG_BYTES));
            } catch (TransferException expected) {
                return;
            }
            int length = slices * SLICE;
            MemorySegment buf = e.allocateBuffer(length + 2 * 4096);
            buf.fill((byte) 0x5A);
            assertThat(r.size())
                    .as("a segment size from the wire is never negative nor beyond the handle's")
                    .isBetween(0L, (long) SEG_BYTES);
            long len = Math.max(0, Math.min(length, r.size() - offset));
            if (len == 0) return;
            TransferBatch b = new TransferBatch(1);
            b.add(Opcode.READ, buf, 4096, r, offset, len);
            long t0 = System.nanoTime();
            try {
                e.submit(b).get(CONFIG.timeout().toMillis() + 3000, TimeUnit.MILLISECONDS);
                if (!b.allOk()) { // the target answered with an error status: a final status, no bytes to check
                    assertThat(b.status(0)).isIn(TransferStatus.FAILED, TransferStatus.OUT_OF_BOUNDS);
                    return;
                }
                // every byte is what the server sent after the slice's header (a well-formed stream is header + payload
                // per slice)
                ByteBuffer stream = ByteBuffer.wrap(dataBytes);
                int p = 16;
                for (int s = 0; s < (b.length(0) + SLICE - 1) / SLICE; s++) {
                    int sl = (int) Math.min(SLICE, b.length(0) - (long) s * SLICE);
                    p += 16;
                    for (int i = 0; i < sl; i++)
                        assertThat(buf.get(ValueLayout.JAVA_BYTE, 4096 + (long) s * SLICE + i))
                                .isEqualTo(stream.get(p + i));
                    p += sl;
                }
            } catch (ExecutionException failed) {
                assertThat(failed.getCause()).isInstanceOf(TransferException.class);
                assertThat(b.status(0))
                        .isIn(TransferStatus.FAILED, TransferStatus.TIMEOUT, TransferStatus.OUT_OF_BOUNDS);
            } catch (TimeoutException hung) {
                fail("a batch outlived its timeout by 3 s against a hostile target");
            }
            assertThat(Duration.ofNanos(System.nanoTime() - t0))
                    .isLessThan(CONFIG.timeout().plusSeconds(2));
            for (long i = 0; i < 4096; i++)
                assertThat(buf.get(ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) 0x5A);
            for (long i = 4096 + b.length(0); i < buf.byteSize(); i++)
                assertThat(buf.get(ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) 0x5A);
        }
    }

    /** These tests talk over loopback sockets on purpose; a connection anywhere else is a finding (Jazzer's SSRF detector). */
    private static void allowLoopback() {
        BugDetectors.allowNetworkConnections((host, port) -> host.equals("127.0.0.1") || host.equals("localhost"));
    }
}
