package dev.kvlab.transport.internal.tcp;

import dev.kvlab.transport.internal.common.BufferView;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * One accepted connection on the target side: a platform thread that reads requests and answers them in
 * order. READ responses are written straight from the segment with gathering writes (up to
 * {@link #GATHER} responses per system call); WRITE payloads are read straight into the segment. Nothing is
 * allocated per request. A malformed or oversized request closes the connection before anything is
 * allocated or read for it.
 *
 * <p>What the server's admission and watchdog see: whether the hello has been answered ({@link #authenticated}),
 * and when the frame now in progress began ({@link #frameStart}, 0 while the connection waits for a new frame with
 * nothing buffered and nothing to send). A frame that is not read and answered within the frame deadline closes
 * the connection (a slow writer cannot hold a thread and a slot).
 */
final class ServerConnection {

    private static final int GATHER = 32;
    private static final int IN_BYTES = 64 * 1024;

    private final TcpServer server;
    private final SocketChannel ch;
    private final Thread thread;
    private final int maxPayload;

    private final ByteBuffer in = ByteBuffer.allocateDirect(IN_BYTES);
    private final MemorySegment inMemory = MemorySegment.ofBuffer(in);
    private final ByteBuffer headers =
            ByteBuffer.allocateDirect(GATHER * Wire.RESPONSE_BYTES + Wire.OPEN_PAYLOAD_BYTES);
    private final ByteBuffer[] gather = new ByteBuffer[2 * GATHER + 1];
    private final ByteBuffer[] headerSlots = new ByteBuffer[GATHER];
    private final BufferView[] views = new BufferView[GATHER];
    private final BufferView payloadView = new BufferView();
    private final ByteBuffer discard = ByteBuffer.allocateDirect(64 * 1024);
    private int gathered; // buffers in gather
    private int responses; // header slots used
    private boolean readsPending; // gathered READ payloads are views of segment memory, sent at the next flush

    private final ByteBuffer[] payloadAndNext = new ByteBuffer[2];
    /** After a WRITE the stream is payload-heavy: refill only up to the next header, so payload is never staged. */
    private boolean streamingWrites;

    private TcpSegment cached;
    private volatile TcpSegment using;

    /** Order of acceptance (larger is newer). */
    final long seq;
    /** The peer's address (for the per-peer limit). */
    final java.net.InetAddress peer;
    /** When the connection was accepted (System.nanoTime). */
    final long acceptedAt = System.nanoTime();

    private volatile boolean authenticated;
    private volatile long frameStart;

    ServerConnection(TcpServer server, SocketChannel ch, long seq, java.net.InetAddress peer) {
        this.server = server;
        this.ch = ch;
        this.seq = seq;
        this.peer = peer;
        this.maxPayload = server.maxPayload;
        for (int i = 0; i < GATHER; i++) {
            headerSlots[i] = headers.slice(i * Wire.RESPONSE_BYTES, Wire.RESPONSE_BYTES);
            views[i] = new BufferView();
        }
        this.thread =
                Thread.ofPlatform().daemon().name("kvlab-tcp-serve-" + remote()).unstarted(this::run);
    }

    private String remote() {
        try {
            return String.valueOf(ch.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    void start() {
        thread.start();
    }

    boolean isUsing(TcpSegment s) {
        return using == s;
    }

    /** True once the hello was accepted. */
    boolean authenticated() {
        return authenticated;
    }

    /** System.nanoTime when the frame in progress began, or 0 when the connection is idle between frames. */
    long frameStart() {
        return frameStart;
    }

    /** Closes the socket; the thread ends at its next I/O. */
    void abort() {
        try {
            ch.close();
        } catch (IOException ignored) {
            // closed anyway
        }
    }

    private void run() {
        try {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            int buf = TcpTransferEngine.intOption(server.config(), "tcp.socketBuffer", 0, 0, 1 << 30);
            if (buf > 0) {
                ch.setOption(StandardSocketOptions.SO_SNDBUF, buf);
                ch.setOption(StandardSocketOptions.SO_RCVBUF, buf);
            }
            if (!handshake()) return;
            authenticated = true;
            in.clear().flip();
            serve();
        } catch (IOException | RuntimeException e) {
            // peer gone, protocol violation or segment freed: the connection ends
        } finally {
            abort();
            server.finished(this);
            cached = null;
            using = null;
            for (BufferView v : views) v.clear();
            payloadView.clear();
        }
    }

    /** Reads the client's hello with a deadline (a silent client cannot hold the thread), answers it. */
    private boolean handshake() throws IOException {
        int timeoutMs = (int) Math.min(server.config().timeout().toMillis(), 5_000);
        ch.socket().setSoTimeout(timeoutMs);
        InputStream raw = ch.socket().getInputStream(); // unbuffered; honours SO_TIMEOUT
        DataInputStream din = new DataInputStream(raw);
        ByteBuffer reply = ByteBuffer.allocate(Wire.HELLO_BYTES);
        try {
            int magic = din.readInt();
            short version = din.readShort();
            din.readShort();
            int tokenLen = din.readUnsignedShort();
            din.readShort();
            din.readInt();
            if (magic != Wire.MAGIC || tokenLen > Wire.MAX_TOKEN_BYTES) return false; // not our protocol: just close
            byte[] token = new byte[tokenLen];
            din.readFully(token);
            short status = version != Wire.VERSION
                    ? Wire.HELLO_BAD_VERSION
                    : server.tokens().accepts(token) ? Wire.HELLO_OK : Wire.HELLO_AUTH_FAILED;
            reply.putInt(Wire.MAGIC)
                    .putShort(Wire.VERSION)
                    .putShort(status)
                    .putInt(maxPayload)
                    .putInt(0)
                    .flip();
            Wire.writeFully(ch, reply);
            return status == Wire.HELLO_OK;
        } catch (SocketTimeoutException | EOFException e) {
            return false;
        }
    }

    private void serve() throws IOException {
        while (true) {
            if (in.remaining() < Wire.REQUEST_BYTES) {
                flush();
                in.compact();
                frameStart = in.position() == 0 ? 0 : System.nanoTime(); // idle, or a frame whose header has begun
                if (streamingWrites) in.limit(Wire.REQUEST_BYTES); // just the next header, never the payload behind it
                if (ch.read(in) < 0) return;
                in.limit(in.capacity());
                in.flip();
                continue;
            }
            int p = in.position();
            frameStart = System.nanoTime(); // this frame must be read and answered within the frame deadline
            byte op = in.get(p);
            int segId = in.getInt(p + 4);
            long tag = in.getLong(p + 8);
            long offset = in.getLong(p + 16);
            int length = in.getInt(p + 24);
            if (in.get(p + 1) != 0 || in.getShort(p + 2) != 0 || in.getInt(p + 28) != 0) return; // reserved bits set
            in.position(p + Wire.REQUEST_BYTES);
            switch (op) {
                case Wire.OP_READ -> {
                    if (length < 0 || length > maxPayload) return; // hostile length: close
                    streamingWrites = false;
                    read(segId, tag, offset, length);
                }
                case Wire.OP_WRITE -> {
                    if (length < 0 || length > maxPayload) return;
                    streamingWrites = true;
                    write(segId, tag, offset, length);
                }
                case Wire.OP_OPEN -> {
                    if (length < 0 || length > Wire.MAX_SEGMENT_NAME_BYTES) return;
                    open(tag, length);
                }
                default -> {
                    return; // unknown operation: close
                }
            }
        }
    }

    private TcpSegment lookup(int id) {
        TcpSegment s = cached;
        if (s == null || s.id != id || !s.isOpen()) {
            s = server.segment(id);
            cached = s;
        }
        return s != null && s.isOpen() ? s : null;
    }

    private byte check(TcpSegment s, long offset, int length) {
        if (s == null) return Wire.ST_NO_SEGMENT;
        if (offset < 0 || offset > s.size() - length) return Wire.ST_OUT_OF_BOUNDS;
        return Wire.ST_OK;
    }

    private void read(int segId, long tag, long offset, int length) throws IOException {
        if (responses == GATHER) flush();
        TcpSegment s = lookup(segId);
        byte status = check(s, offset, length);
        ByteBuffer h = headerSlots[responses];
        h.clear();
        Wire.putResponse(h, status, length, tag);
        h.flip();
        gather[gathered++] = h;
        if (length > 0) {
            if (status == Wire.ST_OK) {
                using = s;
                readsPending = true;
                gather[gathered++] = views[responses].of(s.memory(), offset, length);
            } else {
                gather[gathered++] = server.zeros(length); // the response size is fixed by the request
            }
        }
        responses++;
    }

    private void write(int segId, long tag, long offset, int length) throws IOException {
        TcpSegment s = lookup(segId);
        byte status = check(s, offset, length);
        int buffered = Math.min(length, in.remaining());
        if (status == Wire.ST_OK) {
            // earlier READs on this connection must not see this WRITE: their payloads are still views, send them first
            if (readsPending) flush();
            using = s;
            if (buffered > 0) MemorySegment.copy(inMemory, in.position(), s.memory(), offset, buffered);
            in.position(in.position() + buffered);
            if (length > buffered) {
                flush();
                readPayloadAndNextHeader(payloadView.of(s.memory(), offset + buffered, length - buffered));
            }
        } else {
            in.position(in.position() + buffered);
            long rest = length - buffered;
            if (rest > 0) flush();
            while (rest > 0) { // keep the stream in step: drain the payload the request announced
                discard.clear().limit((int) Math.min(discard.capacity(), rest));
                int n = ch.read(discard);
                if (n < 0) throw new EOFException("connection closed mid-payload");
                rest -= n;
            }
        }
        if (responses == GATHER) flush();
        ByteBuffer h = headerSlots[responses++];
        h.clear();
        Wire.putResponse(h, status, 0, tag);
        h.flip();
        gather[gathered++] = h;
    }

    /**
     * Reads the rest of a WRITE payload straight into the segment, and in the same system call as much of the next
     * request header as has arrived (at most 32 bytes, so no payload is ever staged). {@code in} is empty on entry.
     */
    private void readPayloadAndNextHeader(ByteBuffer payload) throws IOException {
        in.clear().limit(Wire.REQUEST_BYTES);
        payloadAndNext[0] = payload;
        payloadAndNext[1] = in;
        try {
            while (payload.hasRemaining()) {
                if (ch.read(payloadAndNext) < 0) throw new EOFException("connection closed mid-payload");
            }
        } finally {
            payloadAndNext[0] = null;
            payloadAndNext[1] = null;
            in.limit(in.capacity());
        }
        in.flip();
    }

    private void open(long tag, int length) throws IOException {
        byte[] name = new byte[length];
        int buffered = Math.min(length, in.remaining());
        in.get(name, 0, buffered);
        if (length > buffered) {
            flush(); // never wait on the network while holding answers to earlier requests
            ByteBuffer rest = ByteBuffer.wrap(name, buffered, length - buffered);
            Wire.readFully(ch, rest);
        }
        flush();
        TcpSegment s = server.segment(new String(name, StandardCharsets.UTF_8));
        ByteBuffer r = ByteBuffer.allocate(Wire.RESPONSE_BYTES + Wire.OPEN_PAYLOAD_BYTES);
        Wire.putResponse(r, s != null && s.isOpen() ? Wire.ST_OK : Wire.ST_NO_SEGMENT, Wire.OPEN_PAYLOAD_BYTES, tag);
        r.putInt(s != null ? s.id : 0).putLong(s != null ? s.size() : 0).flip();
        Wire.writeFully(ch, r);
    }

    private void flush() throws IOException {
        if (gathered > 0) {
            Wire.writeFully(ch, gather, gathered);
            for (int i = 0; i < gathered; i++) gather[i] = null;
        }
        gathered = 0;
        responses = 0;
        readsPending = false;
        using = null;
    }
}
