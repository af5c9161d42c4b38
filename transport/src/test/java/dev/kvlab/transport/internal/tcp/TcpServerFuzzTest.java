package dev.kvlab.transport.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The tcp transport's target side against a hostile client, over a real socket: the fuzzer's bytes are sent on a
 * fresh connection (optionally after a valid hello), the client half-closes, and everything the server answers is
 * checked against a reference model of {@code transport/WIRE.md}: the server's answer must be a prefix of the
 * answers the model expects (exactly all of them when the stream broke no rule), every status as the model says,
 * every READ payload the segment's bytes at that point of the stream (WRITEs included), and the connection must
 * end. After that the server must still serve an honest client, and no serving thread may be left behind.
 *
 * <p>Fuzz for real: {@code JAZZER_FUZZ=1 mvn -pl transport test -Dtest=TcpServerFuzzTest -Djazzer.max_duration=10m}.
 */
class TcpServerFuzzTest {

    private static final int SEG_BYTES = 64 * 1024;
    private static final TransportConfig CONFIG = TransportConfig.defaults()
            .withTimeout(Duration.ofSeconds(2))
            .withMaxFrameBytes(4096)
            .withSliceSize(4000);
    private static TransferEngine target;
    private static Segment segment;
    private static int segmentId;
    private static InetSocketAddress address;
    private static int maxPayload;
    private static long inputs;

    @BeforeAll
    static void start() {
        target = Transports.discover().create("tcp", CONFIG);
        segment = target.registerSegment("fuzz", SEG_BYTES);
        segmentId = ((TcpSegment) segment).id;
        maxPayload = TcpTransferEngine.maxPayload(CONFIG);
        String a = segment.handle().address();
        address = new InetSocketAddress(
                a.substring(0, a.lastIndexOf(':')), Integer.parseInt(a.substring(a.lastIndexOf(':') + 1)));
    }

    @AfterAll
    static void stop() throws Exception {
        honestClientIsServed();
        target.close();
    }

    private static byte pattern(int i) {
        return (byte) (i * 131 + 7);
    }

    @FuzzTest(maxDuration = "5m")
    void hostileClientBytes(byte[] data) throws Exception {
        allowLoopback();
        if (data.length == 0) return;
        byte[] shadow = new byte[SEG_BYTES];
        for (int i = 0; i < SEG_BYTES; i++) shadow[i] = pattern(i);
        MemorySegment.copy(MemorySegment.ofArray(shadow), 0, segment.memory(), 0, SEG_BYTES);

        byte[] stream = Arrays.copyOfRange(data, 1, data.length);
        if ((data[0] & 1) == 1) { // a valid hello first, then the fuzzer's requests
            ByteBuffer hello = ByteBuffer.allocate(Wire.HELLO_BYTES + data.length - 1);
            hello.putInt(Wire.MAGIC)
                    .putShort(Wire.VERSION)
                    .putShort((short) 0)
                    .putShort((short) 0)
                    .putShort((short) 0)
                    .putInt(0);
            hello.put(data, 1, data.length - 1);
            stream = hello.array();
        }
        if ((data[0] & 2) == 2) patchSegmentIds(stream);
        Expected expected = model(stream, shadow);
        byte[] got = exchange(stream);
        assertThat(got.length)
                .as("answer length (expected %d%s)", expected.bytes.length, expected.complete ? "" : " or a prefix")
                .isLessThanOrEqualTo(expected.bytes.length);
        assertThat(Arrays.equals(got, 0, got.length, expected.bytes, 0, got.length))
                .as(
                        "the answer is a prefix of what WIRE.md prescribes; first difference at byte %d",
                        Arrays.mismatch(got, expected.bytes))
                .isTrue();
        if (expected.complete)
            assertThat(got.length)
                    .as("a stream that broke no rule is answered in full")
                    .isEqualTo(expected.bytes.length);
        if (++inputs % 512 == 0) honestClientIsServed();
    }

    /** Points requests at the real segment now and then, so the fuzzer reaches the data paths without guessing the id. */
    private static void patchSegmentIds(byte[] s) {
        for (int p = Wire.HELLO_BYTES; p + Wire.REQUEST_BYTES <= s.length; p += Wire.REQUEST_BYTES) {
            if ((s[p + 4] & 0x80) != 0) ByteBuffer.wrap(s).putInt(p + 4, segmentId);
        }
    }

    private static byte[] exchange(byte[] stream) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(address, 2000);
            s.setSoTimeout(10_000);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Thread reader = Thread.ofPlatform().start(() -> {
                try {
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[8192];
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        synchronized (out) {
                            out.write(buf, 0, n);
                        }
                    }
                } catch (IOException e) {
                    // reset by the server: what it sent before counts
                }
            });
            try {
                s.getOutputStream().write(stream);
                s.shutdownOutput();
            } catch (IOException e) {
                // the server closed early; it may do so
            }
            try {
                reader.join(15_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            assertThat(reader.isAlive())
                    .as("the server neither answered in full nor closed the connection")
                    .isFalse();
            synchronized (out) {
                return out.toByteArray();
            }
        }
    }

    /** What the server must answer: {@code bytes}, all of it when {@code complete} (no rule broken), else a prefix. */
    private record Expected(byte[] bytes, boolean complete) {}

    private static Expected model(byte[] s, byte[] shadow) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer b = ByteBuffer.wrap(s);
        if (s.length < Wire.HELLO_BYTES) return new Expected(new byte[0], true);
        int magic = b.getInt(0);
        short version = b.getShort(4);
        int tokenLen = Short.toUnsignedInt(b.getShort(8));
        if (magic != Wire.MAGIC || tokenLen > Wire.MAX_TOKEN_BYTES) return new Expected(new byte[0], false);
        if (s.length < Wire.HELLO_BYTES + tokenLen) return new Expected(new byte[0], true);
        short status = version != Wire.VERSION ? Wire.HELLO_BAD_VERSION : Wire.HELLO_OK; // this server wants no token
        out.writeBytes(ByteBuffer.allocate(16)
                .putInt(Wire.MAGIC)
                .putShort(Wire.VERSION)
                .putShort(status)
                .putInt(maxPayload)
                .putInt(0)
                .array());
        if (status != Wire.HELLO_OK) return new Expected(out.toByteArray(), true);
        int p = Wire.HELLO_BYTES + tokenLen;
        while (s.length - p >= Wire.REQUEST_BYTES) {
            byte op = b.get(p);
            int seg = b.getInt(p + 4);
            long tag = b.getLong(p + 8);
            long offset = b.getLong(p + 16);
            int length = b.getInt(p + 24);
            if (b.get(p + 1) != 0 || b.getShort(p + 2) != 0 || b.getInt(p + 28) != 0)
                return new Expected(out.toByteArray(), false);
            p += Wire.REQUEST_BYTES;
            switch (op) {
                case Wire.OP_READ -> {
                    if (length < 0 || length > maxPayload) return new Expected(out.toByteArray(), false);
                    byte st = status(seg, offset, length);
                    out.writeBytes(response(st, length, tag));
                    if (st == Wire.ST_OK) out.write(shadow, (int) offset, length);
                    else out.writeBytes(new byte[length]);
                }
                case Wire.OP_WRITE -> {
                    if (length < 0 || length > maxPayload) return new Expected(out.toByteArray(), false);
                    if (s.length - p < length) return new Expected(out.toByteArray(), true); // payload cut short: EOF
                    byte st = status(seg, offset, length);
                    if (st == Wire.ST_OK) System.arraycopy(s, p, shadow, (int) offset, length);
                    p += length;
                    out.writeBytes(response(st, 0, tag));
                }
                case Wire.OP_OPEN -> {
                    if (length < 0 || length > Wire.MAX_SEGMENT_NAME_BYTES)
                        return new Expected(out.toByteArray(), false);
                    if (s.length - p < length) return new Expected(out.toByteArray(), true);
                    boolean ok = new String(s, p, length, StandardCharsets.UTF_8).equals("fuzz");
                    p += length;
                    out.writeBytes(response(ok ? Wire.ST_OK : Wire.ST_NO_SEGMENT, Wire.OPEN_PAYLOAD_BYTES, tag));
                    out.writeBytes(ByteBuffer.allocate(12)
                            .putInt(ok ? segmentId : 0)
                            .putLong(ok ? SEG_BYTES : 0)
                            .array());
                }
                default -> {
                    return new Expected(out.toByteArray(), false);
                }
            }
        }
        return new Expected(out.toByteArray(), true);
    }

    private static byte status(int seg, long offset, int length) {
        if (seg != segmentId) return Wire.ST_NO_SEGMENT;
        return offset < 0 || offset > SEG_BYTES - length ? Wire.ST_OUT_OF_BOUNDS : Wire.ST_OK;
    }

    private static byte[] response(byte status, int length, long tag) {
        ByteBuffer r = ByteBuffer.allocate(Wire.RESPONSE_BYTES);
        Wire.putResponse(r, status, length, tag);
        return r.array();
    }

    /** An honest initiator still gets the segment's bytes, and no connection thread of earlier inputs lingers. */
    private static void honestClientIsServed() throws Exception {
        try (TransferEngine i = Transports.discover().create("tcp", CONFIG)) {
            RemoteSegment r = i.openSegment(segment.handle());
            MemorySegment buf = i.allocateBuffer(4000);
            TransferBatch batch = new TransferBatch(1);
            batch.add(Opcode.READ, buf, 0, r, 100, 4000);
            assertThat(i.submit(batch).get(5, TimeUnit.SECONDS).allOk()).isTrue();
            for (int k = 0; k < 4000; k += 997)
                assertThat(buf.get(ValueLayout.JAVA_BYTE, k))
                        .isEqualTo(segment.memory().get(ValueLayout.JAVA_BYTE, 100 + k));
        }
        long until = System.nanoTime() + 5_000_000_000L;
        while (serveThreads() > 0 && System.nanoTime() < until) Thread.sleep(10);
        assertThat(serveThreads()).as("server connection threads left behind").isZero();
    }

    private static long serveThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("kvlab-tcp-serve-") && t.isAlive())
                .count();
    }

    /** These tests talk over loopback sockets on purpose; a connection anywhere else is a finding (Jazzer's SSRF detector). */
    private static void allowLoopback() {
        BugDetectors.allowNetworkConnections((host, port) -> host.equals("127.0.0.1") || host.equals("localhost"));
    }
}
