package dev.kvlab.transport.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransferStatus;
import dev.kvlab.transport.api.TransportConfig;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The tcp transport at the byte level: bounded frames, the hello, auth, and an initiator that trusts nothing. */
class TcpWireTest {

    private final TransportConfig config = TransportConfig.defaults().withTimeout(Duration.ofSeconds(2));
    private TransferEngine target;
    private Segment segment;
    private InetSocketAddress address;

    @BeforeEach
    void start() {
        target = Transports.discover().create("tcp", config);
        segment = target.registerSegment("wire", 1 << 20);
        String a = segment.handle().address();
        address = new InetSocketAddress(
                a.substring(0, a.lastIndexOf(':')), Integer.parseInt(a.substring(a.lastIndexOf(':') + 1)));
    }

    @AfterEach
    void stop() {
        target.close();
    }

    private SocketChannel hello(String token, short version) throws IOException {
        SocketChannel ch = SocketChannel.open(address);
        byte[] t = token == null ? new byte[0] : token.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(16 + t.length);
        b.putInt(Wire.MAGIC)
                .putShort(version)
                .putShort((short) 0)
                .putShort((short) t.length)
                .putShort((short) 0)
                .putInt(0)
                .put(t)
                .flip();
        Wire.writeFully(ch, b);
        return ch;
    }

    private static short helloStatus(SocketChannel ch) throws IOException {
        ByteBuffer r = ByteBuffer.allocate(16);
        Wire.readFully(ch, r);
        assertThat(r.getInt(0)).isEqualTo(Wire.MAGIC);
        return r.getShort(6);
    }

    /** True when the server closed the connection (EOF or reset) within two seconds. */
    private static boolean closedByPeer(SocketChannel ch) throws IOException {
        ch.socket().setSoTimeout(2000);
        try {
            byte[] sink = new byte[4096];
            var in = ch.socket().getInputStream();
            while (true) if (in.read(sink) < 0) return true;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        } finally {
            ch.close();
        }
    }

    private static ByteBuffer request(byte op, int seg, long tag, long offset, int length) {
        ByteBuffer b = ByteBuffer.allocate(Wire.REQUEST_BYTES);
        Wire.putRequest(b, op, seg, tag, offset, length);
        return b.flip();
    }

    private int openId() throws IOException {
        SocketChannel ch = hello(null, Wire.VERSION);
        assertThat(helloStatus(ch)).isEqualTo(Wire.HELLO_OK);
        byte[] name = "wire".getBytes(StandardCharsets.UTF_8);
        ByteBuffer req = ByteBuffer.allocate(32 + name.length);
        Wire.putRequest(req, Wire.OP_OPEN, 0, 9, 0, name.length);
        Wire.writeFully(ch, req.put(name).flip());
        ByteBuffer resp = ByteBuffer.allocate(28);
        Wire.readFully(ch, resp);
        ch.close();
        assertThat(resp.get(0)).isEqualTo(Wire.ST_OK);
        assertThat(resp.getLong(8)).isEqualTo(9);
        assertThat(resp.getLong(20)).isEqualTo(1 << 20);
        return resp.getInt(16);
    }

    @Test
    void hostileLengthPrefixesCloseTheConnectionAndTheServerKeepsServing() throws Exception {
        int id = openId();
        for (byte op : new byte[] {Wire.OP_READ, Wire.OP_WRITE, Wire.OP_OPEN}) {
            SocketChannel ch = hello(null, Wire.VERSION);
            assertThat(helloStatus(ch)).isEqualTo(Wire.HELLO_OK);
            Wire.writeFully(ch, request(op, id, 1, 0, Integer.MAX_VALUE));
            assertThat(closedByPeer(ch)).as("op " + op + " with a 2 GiB length").isTrue();
        }
        SocketChannel neg = hello(null, Wire.VERSION);
        helloStatus(neg);
        Wire.writeFully(neg, request(Wire.OP_READ, id, 1, 0, -1));
        assertThat(closedByPeer(neg)).isTrue();
        SocketChannel bogus = hello(null, Wire.VERSION);
        helloStatus(bogus);
        Wire.writeFully(bogus, request((byte) 99, id, 1, 0, 16));
        assertThat(closedByPeer(bogus)).as("unknown op").isTrue();
        SocketChannel notUs = SocketChannel.open(address);
        Wire.writeFully(
                notUs, ByteBuffer.wrap("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
        assertThat(closedByPeer(notUs)).as("not our protocol").isTrue();
        SocketChannel hugeToken = SocketChannel.open(address);
        ByteBuffer h = ByteBuffer.allocate(16)
                .putInt(Wire.MAGIC)
                .putShort(Wire.VERSION)
                .putShort((short) 0)
                .putShort((short) 65535)
                .putShort((short) 0)
                .putInt(0)
                .flip();
        Wire.writeFully(hugeToken, h);
        assertThat(closedByPeer(hugeToken)).as("a 64 KiB token length").isTrue();
        // the server is unharmed
        try (TransferEngine initiator = Transports.discover().create("tcp", config)) {
            RemoteSegment r = initiator.openSegment(segment.handle());
            TransferBatch b = new TransferBatch(1);
            b.add(Opcode.READ, initiator.allocateBuffer(4096), 0, r, 0, 4096);
            assertThat(initiator.submit(b).get(5, TimeUnit.SECONDS).allOk()).isTrue();
        }
    }

    @Test
    void aSilentClientIsDroppedAfterTheHelloDeadline() throws Exception {
        SocketChannel ch = SocketChannel.open(address);
        long t0 = System.nanoTime();
        ch.socket().setSoTimeout(10_000);
        assertThat(ch.socket().getInputStream().read()).isEqualTo(-1);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(8));
        ch.close();
    }

    @Test
    void aRejectedWriteIsDrainedAndTheConnectionStaysInStep() throws Exception {
        int id = openId();
        SocketChannel ch = hello(null, Wire.VERSION);
        helloStatus(ch);
        // a WRITE beyond the segment (rejected, payload drained), then a READ that must still be answered
        ByteBuffer payload = ByteBuffer.allocate(100_000);
        Wire.writeFully(ch, request(Wire.OP_WRITE, id, 1, (1 << 20) - 10, 100_000));
        Wire.writeFully(ch, payload);
        Wire.writeFully(ch, request(Wire.OP_READ, id, 2, 0, 10));
        Wire.writeFully(ch, request(Wire.OP_READ, 12345, 3, 0, 10)); // no such segment: still 16 + 10 bytes
        ByteBuffer r = ByteBuffer.allocate(16 + 26 + 26);
        Wire.readFully(ch, r);
        assertThat(r.get(0)).isEqualTo(Wire.ST_OUT_OF_BOUNDS);
        assertThat(r.getLong(8)).isEqualTo(1);
        assertThat(r.get(16)).isEqualTo(Wire.ST_OK);
        assertThat(r.getInt(20)).isEqualTo(10);
        assertThat(r.getLong(24)).isEqualTo(2);
        assertThat(r.get(42)).isEqualTo(Wire.ST_NO_SEGMENT);
        assertThat(r.getInt(46)).isEqualTo(10);
        ch.close();
    }

    @Test
    void aWrongWireVersionIsRefused() throws Exception {
        SocketChannel ch = hello(null, (short) 7);
        assertThat(helloStatus(ch)).isEqualTo(Wire.HELLO_BAD_VERSION);
        assertThat(closedByPeer(ch)).isTrue();
    }

    @Test
    void anAuthTokenIsRequiredOnceConfiguredAndComparedExactly() throws Exception {
        TransportConfig secured = config.withAuthToken("s3cret-token");
        try (TransferEngine t = Transports.discover().create("tcp", secured)) {
            Segment s = t.registerSegment("locked", 4096);
            try (TransferEngine anonymous = Transports.discover().create("tcp", config);
                    TransferEngine wrong = Transports.discover().create("tcp", config.withAuthToken("s3cret-tokeN"));
                    TransferEngine prefix = Transports.discover().create("tcp", config.withAuthToken("s3cret"));
                    TransferEngine right = Transports.discover().create("tcp", secured)) {
                for (TransferEngine e : new TransferEngine[] {anonymous, wrong, prefix})
                    assertThatThrownBy(() -> e.openSegment(s.handle()))
                            .isInstanceOf(TransferException.class)
                            .hasMessageContaining("auth token");
                RemoteSegment r = right.openSegment(s.handle());
                TransferBatch b = new TransferBatch(1);
                b.add(Opcode.WRITE, right.allocateBuffer(4096), 0, r, 0, 4096);
                assertThat(right.submit(b).get(5, TimeUnit.SECONDS).allOk()).isTrue();
            }
        }
        assertThat(secured.toString()).doesNotContain("s3cret");
    }

    @Test
    void aNonLoopbackBindNeedsAToken() {
        TransportConfig open = config.withBindHost("0.0.0.0");
        try (TransferEngine t = Transports.discover().create("tcp", open)) {
            assertThatThrownBy(() -> t.registerSegment("x", 4096))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("requires an auth token");
        }
        try (TransferEngine t = Transports.discover()
                        .create(
                                "tcp",
                                open.withAuthToken("tok")
                                        .withOptions(java.util.Map.of("tcp.advertiseHost", "127.0.0.1")));
                TransferEngine i = Transports.discover().create("tcp", config.withAuthToken("tok"))) {
            Segment s = t.registerSegment("x", 4096);
            assertThat(i.openSegment(s.handle()).size()).isEqualTo(4096);
        }
    }

    @Test
    void aServerThatAnswersWithLengthsNobodyAskedForFailsTheBatchAndCostsNothing() throws Exception {
        try (ServerSocketChannel fake = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                TransferEngine initiator = Transports.discover().create("tcp", config.withConnectionsPerPeer(1))) {
            int port = ((InetSocketAddress) fake.getLocalAddress()).getPort();
            Thread server = Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (true) {
                        SocketChannel c = fake.accept();
                        ByteBuffer hello = ByteBuffer.allocate(16);
                        Wire.readFully(c, hello);
                        Wire.writeFully(
                                c,
                                ByteBuffer.allocate(16)
                                        .putInt(Wire.MAGIC)
                                        .putShort(Wire.VERSION)
                                        .putShort((short) 0)
                                        .putInt(1 << 20)
                                        .putInt(0)
                                        .flip());
                        ByteBuffer req = ByteBuffer.allocate(32);
                        Wire.readFully(c, req);
                        if (req.get(0) == Wire.OP_OPEN) {
                            Wire.readFully(c, ByteBuffer.allocate(req.getInt(24)));
                            ByteBuffer r = ByteBuffer.allocate(28);
                            Wire.putResponse(r, Wire.ST_OK, 12, req.getLong(8));
                            Wire.writeFully(c, r.putInt(7).putLong(1 << 20).flip());
                        } else {
                            ByteBuffer r = ByteBuffer.allocate(16);
                            Wire.putResponse(r, Wire.ST_OK, Integer.MAX_VALUE, req.getLong(8)); // a hostile length
                            Wire.writeFully(c, r.flip());
                        }
                    }
                } catch (IOException ignored) {
                    // test over
                }
            });
            RemoteSegment r = initiator.openSegment(new SegmentHandle("tcp", "127.0.0.1:" + port, "any", 1 << 20));
            MemorySegment buf = initiator.allocateBuffer(4096);
            TransferBatch b = new TransferBatch(1);
            b.add(Opcode.READ, buf, 0, r, 0, 16);
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> initiator.submit(b).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(TransferException.class)
                    .hasMessageContaining("protocol error");
            assertThat(b.status(0)).isEqualTo(TransferStatus.FAILED);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
            server.interrupt();
        }
    }
}
