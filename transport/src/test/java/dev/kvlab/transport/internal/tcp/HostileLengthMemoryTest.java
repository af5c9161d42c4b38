package dev.kvlab.transport.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A hostile length prefix costs the attacker a closed connection and the server no memory: real sockets announce
 * 2 GiB READs, WRITEs, OPENs and tokens, and the server's heap allocation plus direct memory per connection stays
 * what an honest connection costs (well under 1 MiB), nowhere near the lengths announced.
 */
class HostileLengthMemoryTest {

    private static final int CONNECTIONS = 24;

    @Test
    void announcedLengthsAllocateNothing() throws Exception {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(p -> p.getName().equals("direct"))
                .findFirst()
                .orElseThrow();
        try (TransferEngine target =
                Transports.discover().create("tcp", TransportConfig.defaults().withTimeout(Duration.ofSeconds(2)))) {
            Segment s = target.registerSegment("mem", 1 << 20);
            String a = s.handle().address();
            InetSocketAddress at = new InetSocketAddress(
                    a.substring(0, a.lastIndexOf(':')), Integer.parseInt(a.substring(a.lastIndexOf(':') + 1)));
            hostile(at, Wire.OP_READ); // warm up class loading outside the measurement
            System.gc();
            long heap0 = threads.getTotalThreadAllocatedBytes(), direct0 = direct.getMemoryUsed();
            for (int i = 0; i < CONNECTIONS; i++) {
                hostile(at, Wire.OP_READ);
                hostile(at, Wire.OP_WRITE);
                hostile(at, Wire.OP_OPEN);
                hostileToken(at);
            }
            long heap = threads.getTotalThreadAllocatedBytes() - heap0, directUsed = direct.getMemoryUsed() - direct0;
            long perConnection = (heap + Math.max(0, directUsed)) / (4L * CONNECTIONS);
            assertThat(perConnection)
                    .as(
                            "bytes per hostile connection (heap %d, direct %d over %d connections)",
                            heap, directUsed, 4 * CONNECTIONS)
                    .isLessThan(1L << 20);
        }
    }

    /** Sends a hello and one request announcing 2 GiB - 1; true when the server closed the connection. */
    private static void hostile(InetSocketAddress at, byte op) throws Exception {
        try (Socket sock = new Socket()) {
            sock.connect(at, 2000);
            sock.setSoTimeout(5000);
            ByteBuffer b = ByteBuffer.allocate(16 + 32);
            b.putInt(Wire.MAGIC)
                    .putShort(Wire.VERSION)
                    .putShort((short) 0)
                    .putShort((short) 0)
                    .putShort((short) 0)
                    .putInt(0);
            Wire.putRequest(b, op, 1, 1, 0, Integer.MAX_VALUE);
            sock.getOutputStream().write(b.array());
            assertThat(drainUntilClosed(sock))
                    .as("op %d: only the 16-byte hello answer, then close", op)
                    .isEqualTo(16);
        }
    }

    private static void hostileToken(InetSocketAddress at) throws Exception {
        try (Socket sock = new Socket()) {
            sock.connect(at, 2000);
            sock.setSoTimeout(5000);
            ByteBuffer b = ByteBuffer.allocate(16)
                    .putInt(Wire.MAGIC)
                    .putShort(Wire.VERSION)
                    .putShort((short) 0)
                    .putShort((short) 0xFFFF)
                    .putShort((short) 0)
                    .putInt(0);
            sock.getOutputStream().write(b.array());
            assertThat(drainUntilClosed(sock))
                    .as("a 64 KiB token is refused without an answer")
                    .isZero();
        }
    }

    private static int drainUntilClosed(Socket sock) throws Exception {
        int n = 0;
        byte[] buf = new byte[4096];
        try {
            int r;
            while ((r = sock.getInputStream().read(buf)) > 0) n += r;
        } catch (java.net.SocketException reset) {
            // closed with a reset: fine
        }
        return n;
    }
}
