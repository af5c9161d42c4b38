package dev.kvlab.transport.internal.tcp;

import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferStatus;
import dev.kvlab.transport.internal.common.BatchProgress;
import dev.kvlab.transport.internal.common.BufferView;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * One initiator-side connection of a {@link PeerPool}: a writer thread that claims slices from the pool and
 * sends their requests (READ headers coalesced into one gathering write; WRITE payloads straight from the
 * caller's buffer), and a reader thread that takes the responses in order, reading each READ payload straight
 * into the caller's buffer with a scattering read of exactly the expected bytes. The in-flight slices live in
 * a fixed ring (the window); nothing is allocated per slice. Idle threads park; nothing spins.
 */
final class ClientConnection {

    private static final int MAX_ACKS = 64;

    final PeerPool pool;
    final SocketChannel ch;
    final int generation;
    private final int window;
    private final int mask;

    // the ring of in-flight slices: [tail, head)
    private final BatchProgress[] rBatch;
    private final int[] rRequest;
    private final int[] rLength;
    private final long[] rLocal;
    private final long[] rRemote;
    private final byte[] rOp;
    private final int[] rSegment;
    private volatile long head;
    private volatile long tail;

    private final Thread writer;
    private final Thread reader;
    private volatile boolean readerIdle;
    private volatile boolean writerWaitsForWindow;
    private volatile boolean stopped;

    // writer state
    private final ByteBuffer[] requestHeaders;
    private final ByteBuffer[] gather;
    private final BufferView[] payloadViews;

    // reader state
    private final ByteBuffer acks = ByteBuffer.allocateDirect(MAX_ACKS * Wire.RESPONSE_BYTES);
    private final ByteBuffer responseHeader = ByteBuffer.allocateDirect(Wire.RESPONSE_BYTES);
    private final ByteBuffer[] scatter = new ByteBuffer[2];
    private final BufferView destination = new BufferView();

    ClientConnection(PeerPool pool, SocketChannel ch, int generation, int window, int index) {
        this.pool = pool;
        this.ch = ch;
        this.generation = generation;
        this.window = window;
        this.mask = window - 1;
        rBatch = new BatchProgress[window];
        rRequest = new int[window];
        rLength = new int[window];
        rLocal = new long[window];
        rRemote = new long[window];
        rOp = new byte[window];
        rSegment = new int[window];
        ByteBuffer headers = ByteBuffer.allocateDirect(window * Wire.REQUEST_BYTES);
        requestHeaders = new ByteBuffer[window];
        payloadViews = new BufferView[window];
        for (int i = 0; i < window; i++) {
            requestHeaders[i] = headers.slice(i * Wire.REQUEST_BYTES, Wire.REQUEST_BYTES);
            payloadViews[i] = new BufferView();
        }
        gather = new ByteBuffer[2 * window];
        scatter[0] = responseHeader;
        String name = "kvlab-tcp-" + pool.label() + "-" + index;
        writer = Thread.ofPlatform().daemon().name(name + "-w").unstarted(this::writeLoop);
        reader = Thread.ofPlatform().daemon().name(name + "-r").unstarted(this::readLoop);
    }

    void start() {
        writer.start();
        reader.start();
    }

    /** Work was queued on the pool. */
    void wakeWriter() {
        LockSupport.unpark(writer);
    }

    /** Free ring slots. Writer thread only. */
    int free() {
        return (int) (window - (head - tail));
    }

    /** Stages slice {@code k} of a claim at ring position head + k. Writer thread, under the pool lock. */
    void stage(int k, BatchProgress p, int request, long offsetInRequest, int length) {
        int slot = (int) ((head + k) & mask);
        TransferBatch b = p.batch;
        rBatch[slot] = p;
        rRequest[slot] = request;
        rLength[slot] = length;
        rLocal[slot] = b.localOffset(request) + offsetInRequest;
        rRemote[slot] = b.targetOffset(request) + offsetInRequest;
        rOp[slot] = b.op(request) == dev.kvlab.transport.api.Opcode.READ ? Wire.OP_READ : Wire.OP_WRITE;
        rSegment[slot] = ((TcpRemoteSegment) b.target(request)).id();
    }

    /** Makes {@code k} staged slices visible to the reader. Writer thread, under the pool lock. */
    void publish(int k) {
        head = head + k;
        if (readerIdle) LockSupport.unpark(reader);
    }

    private void writeLoop() {
        try {
            while (!stopped) {
                int free = free();
                if (free == 0) {
                    writerWaitsForWindow = true;
                    if (free() == 0 && !stopped) LockSupport.park(this);
                    writerWaitsForWindow = false;
                    continue;
                }
                long first = head;
                int k = pool.claim(this, free);
                if (k < 0) return;
                if (k == 0) {
                    LockSupport.park(this);
                    continue;
                }
                send(first, k);
            }
        } catch (IOException | RuntimeException e) {
            if (!stopped) pool.connectionFailed(this, e);
        }
    }

    private void send(long first, int k) throws IOException {
        int g = 0;
        for (int i = 0; i < k; i++) {
            long seq = first + i;
            int slot = (int) (seq & mask);
            ByteBuffer h = requestHeaders[slot];
            h.clear();
            Wire.putRequest(h, rOp[slot], rSegment[slot], seq, rRemote[slot], rLength[slot]);
            h.flip();
            gather[g++] = h;
            if (rOp[slot] == Wire.OP_WRITE) {
                BatchProgress p = rBatch[slot];
                gather[g++] = payloadViews[slot].of(p.batch.local(rRequest[slot]), rLocal[slot], rLength[slot]);
            }
        }
        Wire.writeFully(ch, gather, g);
        for (int i = 0; i < g; i++) gather[i] = null;
    }

    private void readLoop() {
        try {
            while (!stopped) {
                long t = tail;
                if (t == head) {
                    readerIdle = true;
                    if (t == head && !stopped) LockSupport.park(this);
                    readerIdle = false;
                    continue;
                }
                int slot = (int) (t & mask);
                if (rOp[slot] == Wire.OP_READ) readOne(t, slot);
                else readAcks(t);
            }
        } catch (IOException | RuntimeException e) {
            if (!stopped) pool.connectionFailed(this, e);
        }
    }

    private void readOne(long seq, int slot) throws IOException {
        BatchProgress p = rBatch[slot];
        int len = rLength[slot];
        responseHeader.clear();
        scatter[1] = destination.of(p.batch.local(rRequest[slot]), rLocal[slot], len);
        long want = Wire.RESPONSE_BYTES + (long) len;
        long got = 0;
        boolean checked = false;
        while (got < want) {
            long n = ch.read(scatter);
            if (n < 0) throw new java.io.EOFException("connection closed by the peer");
            got += n;
            if (!checked && !responseHeader.hasRemaining()) {
                checkHeader(
                        seq,
                        responseHeader,
                        0,
                        len); // a wrong header fails now, not after waiting for bytes that never come
                checked = true;
            }
        }
        scatter[1] = null;
        finishSlot(seq, slot, responseHeader, 0, len);
    }

    private void readAcks(long first) throws IOException {
        int n = 0;
        long h = head;
        while (n < MAX_ACKS && first + n < h && rOp[(int) ((first + n) & mask)] == Wire.OP_WRITE) n++;
        acks.clear().limit(n * Wire.RESPONSE_BYTES);
        Wire.readFully(ch, acks);
        for (int i = 0; i < n; i++) finishSlot(first + i, (int) ((first + i) & mask), acks, i * Wire.RESPONSE_BYTES, 0);
    }

    private void checkHeader(long seq, ByteBuffer b, int at, int expectedLength) throws IOException {
        int length = b.getInt(at + 4);
        long tag = b.getLong(at + 8);
        if (tag != seq || length != expectedLength || b.get(at + 1) != 0 || b.getShort(at + 2) != 0)
            throw new IOException("protocol error from " + pool.label() + ": response tag " + tag + " length " + length
                    + ", expected tag " + seq + " length " + expectedLength);
    }

    private void finishSlot(long seq, int slot, ByteBuffer b, int at, int expectedLength) throws IOException {
        checkHeader(seq, b, at, expectedLength);
        byte status = b.get(at);
        TransferStatus error = switch (status) {
            case Wire.ST_OK -> null;
            case Wire.ST_OUT_OF_BOUNDS, Wire.ST_NO_SEGMENT -> TransferStatus.OUT_OF_BOUNDS;
            default -> TransferStatus.FAILED;
        };
        BatchProgress p = rBatch[slot];
        int request = rRequest[slot];
        rBatch[slot] = null;
        tail = seq + 1;
        if (writerWaitsForWindow) LockSupport.unpark(writer);
        if (p.sliceDone(request, error)) pool.engine.finish(p);
    }

    /** Closes the socket and waits until neither thread touches any caller buffer any more. */
    void shutdown() {
        stopped = true;
        try {
            ch.close();
        } catch (IOException ignored) {
            // closed anyway
        }
        LockSupport.unpark(writer);
        LockSupport.unpark(reader);
        join(writer);
        join(reader);
    }

    private static void join(Thread t) {
        if (t == Thread.currentThread() || !t.isAlive()) return;
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    /** Batches with slices still in flight. After {@link #shutdown()}. */
    void collectInFlight(Set<BatchProgress> into) {
        for (long s = tail; s < head; s++) {
            int slot = (int) (s & mask);
            if (rBatch[slot] != null) into.add(rBatch[slot]);
            rBatch[slot] = null;
        }
        for (BufferView v : payloadViews) v.clear();
        destination.clear();
    }
}
