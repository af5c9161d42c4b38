package dev.kvlab.transport.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 14, defect 3: a thousand local connections that each send a WRITE header and only part of its payload used
 * to hold every server slot forever, so real clients were reset. Now each frame has a deadline, stalled frames and
 * unauthenticated connections make room first, and a real client is served while the flood holds its sockets.
 */
class TcpSlowWriterFloodTest {

    private final List<SocketChannel> flood = new ArrayList<>();
    private TransferEngine target, client;

    @AfterEach
    void stop() {
        for (SocketChannel c : flood) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        if (client != null) client.close();
        if (target != null) target.close();
    }

    private static SocketChannel slowWriter(InetSocketAddress a, int segId) throws IOException {
        SocketChannel ch = SocketChannel.open(a);
        ByteBuffer b = ByteBuffer.allocate(16 + Wire.REQUEST_BYTES + 100);
        b.putInt(Wire.MAGIC)
                .putShort(Wire.VERSION)
                .putShort((short) 0)
                .putShort((short) 0)
                .putShort((short) 0)
                .putInt(0);
        Wire.putRequest(b, Wire.OP_WRITE, segId, 1, 0, 1 << 20);
        b.put(new byte[100]).flip();
        Wire.writeFully(ch, b);
        return ch;
    }

    private static boolean readOnce(TransferEngine client, RemoteSegment r, MemorySegment buf) {
        try {
            TransferBatch b = new TransferBatch(1);
            b.add(Opcode.READ, buf, 0, r, 4096, 4096);
            return client.submit(b).get(5, TimeUnit.SECONDS).allOk();
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void aThousandSlowWritersDoNotLockAClientOut() throws Exception {
        TransportConfig config = TransportConfig.defaults().withTimeout(Duration.ofSeconds(2));
        target = Transports.discover().create("tcp", config);
        Segment seg = target.registerSegment("flooded", 4 << 20);
        seg.memory().asSlice(4096, 4096).fill((byte) 7);
        String addr = seg.handle().address();
        InetSocketAddress a = new InetSocketAddress(
                addr.substring(0, addr.lastIndexOf(':')), Integer.parseInt(addr.substring(addr.lastIndexOf(':') + 1)));
        int segId = ((TcpSegment) seg).id;

        int opened = 0;
        for (int i = 0; i < 1000; i++) {
            try {
                flood.add(slowWriter(a, segId));
                opened++;
            } catch (IOException refused) {
                // the server may close some at once
            }
        }
        assertThat(opened).isGreaterThan(TcpServer.MAX_CONNECTIONS);

        client = Transports.discover().create("tcp", config);
        MemorySegment buf = client.allocateBuffer(4096);
        long t0 = System.nanoTime();
        boolean ok = false;
        RemoteSegment r = null;
        while (!ok && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(8)) {
            try {
                if (r == null) r = client.openSegment(seg.handle());
                ok = readOnce(client, r, buf);
            } catch (dev.kvlab.transport.api.TransferException lockedOut) {
                Thread.sleep(50);
            }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        assertThat(ok).as("a client read during the flood").isTrue();
        assertThat(buf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 100)).isEqualTo((byte) 7);
        assertThat(secs).as("seconds until the client was served").isLessThan(4);

        // within the frame deadline (2 s) every slow writer is gone, and clients keep being served
        Thread.sleep(3000);
        TcpServer server = ((TcpSegment) seg).server();
        assertThat(server.connectionCount())
                .as("connections left on the server")
                .isLessThanOrEqualTo(config.connectionsPerPeer() + 1);
        TcpServer.Limits l = server.limits();
        assertThat(l.timedOut() + l.evicted() + l.refused()).isGreaterThanOrEqualTo(opened - 5);
        // a pool whose idle connection was closed to make room during the flood loses one batch and reconnects
        // (WIRE.md)
        if (!readOnce(client, r, buf)) Thread.sleep(100);
        for (int i = 0; i < 20; i++)
            assertThat(readOnce(client, r, buf))
                    .as(
                            "read %d after the flood; %s, %d connections, the client was served after %.2f s",
                            i, server.limits(), server.connectionCount(), secs)
                    .isTrue();
    }

    @Test
    void perPeerAndTotalLimitsRefuseTheNewestIdleFirst() throws Exception {
        TransportConfig config = TransportConfig.defaults()
                .withTimeout(Duration.ofSeconds(30))
                .withOptions(java.util.Map.of("tcp.maxConnections", "8", "tcp.maxConnectionsPerPeer", "8"));
        target = Transports.discover().create("tcp", config);
        Segment seg = target.registerSegment("limited", 1 << 20);
        String addr = seg.handle().address();
        InetSocketAddress a = new InetSocketAddress(
                addr.substring(0, addr.lastIndexOf(':')), Integer.parseInt(addr.substring(addr.lastIndexOf(':') + 1)));
        TcpServer server = ((TcpSegment) seg).server();
        // eight idle (authenticated, no frame) connections fill the server
        List<SocketChannel> idle = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            SocketChannel ch = SocketChannel.open(a);
            ByteBuffer b = ByteBuffer.allocate(16);
            b.putInt(Wire.MAGIC)
                    .putShort(Wire.VERSION)
                    .putShort((short) 0)
                    .putShort((short) 0)
                    .putShort((short) 0)
                    .putInt(0)
                    .flip();
            Wire.writeFully(ch, b);
            Wire.readFully(ch, ByteBuffer.allocate(16));
            idle.add(ch);
            flood.add(ch);
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (server.connectionCount() < 8 && System.nanoTime() < until) Thread.sleep(10);
        // a real client gets in: the newest idle connection made room, the oldest ones are still served
        client = Transports.discover().create("tcp", config.withConnectionsPerPeer(1));
        RemoteSegment r = client.openSegment(seg.handle());
        assertThat(readOnce(client, r, client.allocateBuffer(4096))).isTrue();
        assertThat(server.connectionCount()).isLessThanOrEqualTo(8);
        assertThat(server.limits().evicted()).isGreaterThanOrEqualTo(1);
        ByteBuffer probe = ByteBuffer.allocate(Wire.REQUEST_BYTES);
        Wire.putRequest(probe, Wire.OP_READ, ((TcpSegment) seg).id, 5, 0, 16);
        Wire.writeFully(idle.get(0), probe.flip());
        ByteBuffer resp = ByteBuffer.allocate(Wire.RESPONSE_BYTES + 16);
        Wire.readFully(idle.get(0), resp);
        assertThat(resp.get(0)).as("the oldest idle connection still answers").isEqualTo(Wire.ST_OK);
    }
}
