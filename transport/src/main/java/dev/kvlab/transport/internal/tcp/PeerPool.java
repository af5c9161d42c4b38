package dev.kvlab.transport.internal.tcp;

import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransferStatus;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.internal.common.BatchProgress;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * The initiator's connections to one peer ({@code host:port}): {@link TransportConfig#connectionsPerPeer()}
 * connections that take slices from one queue, so the slices of a large request travel on all of them at once.
 *
 * <p>Failure handling: when a connection breaks (peer died, protocol error) or a batch using the pool outlives
 * its timeout, the pool is <em>stopped</em>: every connection is closed and its threads joined (after that no
 * byte moves into or out of a caller's buffer), then every batch that was queued or in flight on it fails.
 * The next submission reconnects.
 */
final class PeerPool {

    private enum State {
        DISCONNECTED,
        CONNECTING,
        CONNECTED,
        STOPPING
    }

    final TcpTransferEngine engine;
    private final InetSocketAddress address;
    private final String label;
    private final TransportConfig config;
    private final int window;
    private final ArrayDeque<PoolCursor> queue = new ArrayDeque<>();
    private ClientConnection[] connections;
    private State state = State.DISCONNECTED;
    private int generation;

    PeerPool(TcpTransferEngine engine, InetSocketAddress address, TransportConfig config) {
        this.engine = engine;
        this.address = address;
        this.label = address.getHostString() + ":" + address.getPort();
        this.config = config;
        long w = Math.max(16, Math.min(256, Long.highestOneBit(Math.max(1, (8L << 20) / config.sliceSize()))));
        this.window = (int) w;
    }

    String label() {
        return label;
    }

    /**
     * Queues the pool's share of a batch. When the pool has no connections, a background thread opens them
     * (the caller never waits for the network); if that fails, the queued batches fail.
     */
    void submit(PoolCursor cursor) {
        ClientConnection[] cs;
        synchronized (this) {
            awaitNotStopping();
            queue.addLast(cursor);
            if (state == State.DISCONNECTED) {
                state = State.CONNECTING;
                int gen = generation;
                Thread.ofVirtual().name("kvlab-tcp-connect-" + label).start(() -> connect(gen));
                return;
            }
            if (state != State.CONNECTED) return;
            cs = connections;
        }
        for (ClientConnection c : cs) c.wakeWriter();
    }

    /**
     * Stages up to {@code max} slices on {@code c}'s ring and publishes them. Returns the number staged, or -1
     * when {@code c} no longer belongs to the pool (its thread should end).
     */
    synchronized int claim(ClientConnection c, int max) {
        if (state != State.CONNECTED || c.generation != generation) return -1;
        int k = 0;
        while (k < max) {
            PoolCursor cur = queue.peekFirst();
            if (cur == null) break;
            if (cur.progress.isDone() || !cur.next()) {
                queue.pollFirst();
                continue;
            }
            c.stage(k++, cur.progress, cur.sliceRequest, cur.sliceOffset, cur.sliceLength);
            if (cur.exhausted()) queue.pollFirst();
        }
        if (k > 0) c.publish(k);
        return k;
    }

    /** Called by a connection's thread when its socket failed. */
    void connectionFailed(ClientConnection c, Throwable e) {
        TransferException cause = new TransferException("connection to " + label + " lost: " + describe(e), e);
        stop(cause, c);
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }

    /**
     * Stops all I/O of this pool (closing connections, joining their threads), then fails every batch that was
     * queued or in flight. If another thread is stopping the pool, a connection thread returns at once and any
     * other caller waits until the I/O has stopped.
     */
    void stop(TransferException cause, ClientConnection caller) {
        stop(cause, caller, caller != null ? caller.generation : -1);
    }

    /** {@link #stop(TransferException, ClientConnection)} only if the pool is still in generation {@code gen} (-1: any). */
    private void stop(TransferException cause, ClientConnection caller, int gen) {
        ClientConnection[] cs;
        List<PoolCursor> queued;
        synchronized (this) {
            if (gen >= 0 && gen != generation) return;
            if (state == State.STOPPING) {
                if (caller == null) awaitNotStopping();
                return;
            }
            if (state == State.DISCONNECTED && queue.isEmpty()) return;
            // CONNECTING: the connector sees the new generation and closes what it opened
            cs = connections;
            connections = null;
            generation++;
            state = State.STOPPING;
            queued = new ArrayList<>(queue);
            queue.clear();
        }
        Set<BatchProgress> affected = Collections.newSetFromMap(new IdentityHashMap<>());
        try {
            if (cs != null) {
                for (ClientConnection c : cs) c.shutdown();
                for (ClientConnection c : cs) c.collectInFlight(affected);
            }
        } finally {
            synchronized (this) {
                state = State.DISCONNECTED;
                notifyAll();
            }
        }
        for (PoolCursor q : queued) affected.add(q.progress);
        for (BatchProgress p : affected) engine.failBatch(p, TransferStatus.FAILED, cause);
    }

    private void awaitNotStopping() {
        boolean interrupted = false;
        while (state == State.STOPPING) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    /** Opens the connections (on a background thread) for generation {@code gen}. */
    private void connect(int gen) {
        int n = config.connectionsPerPeer();
        ClientConnection[] cs = new ClientConnection[n];
        try {
            for (int i = 0; i < n; i++) cs[i] = new ClientConnection(this, dial(), gen, window, i);
        } catch (TransferException e) {
            closeAll(cs);
            stop(e, null, gen);
            return;
        }
        synchronized (this) {
            if (gen != generation || state != State.CONNECTING) {
                closeAll(cs);
                return;
            }
            connections = cs;
            state = State.CONNECTED;
            for (ClientConnection c : cs) c.start();
        }
        for (ClientConnection c : cs) c.wakeWriter();
    }

    private static void closeAll(ClientConnection[] cs) {
        for (ClientConnection c : cs) if (c != null) close(c.ch);
    }

    /** Connects and completes the hello; TransferException with the reason otherwise. */
    private SocketChannel dial() {
        SocketChannel ch = null;
        int timeoutMs = (int) Math.max(1, Math.min(config.timeout().toMillis(), 10_000));
        try {
            ch = SocketChannel.open();
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            int buf = TcpTransferEngine.intOption(config, "tcp.socketBuffer", 0, 0, 1 << 30);
            if (buf > 0) {
                ch.setOption(StandardSocketOptions.SO_SNDBUF, buf);
                ch.setOption(StandardSocketOptions.SO_RCVBUF, buf);
            }
            ch.socket().connect(address, timeoutMs);
            byte[] token = config.authToken() == null
                    ? new byte[0]
                    : config.authToken().getBytes(StandardCharsets.UTF_8);
            if (token.length > Wire.MAX_TOKEN_BYTES)
                throw new TransferException("auth token is longer than " + Wire.MAX_TOKEN_BYTES + " bytes");
            ByteBuffer hello = ByteBuffer.allocate(Wire.HELLO_BYTES + token.length);
            hello.putInt(Wire.MAGIC)
                    .putShort(Wire.VERSION)
                    .putShort((short) 0)
                    .putShort((short) token.length)
                    .putShort((short) 0)
                    .putInt(0)
                    .put(token)
                    .flip();
            Wire.writeFully(ch, hello);
            ch.socket().setSoTimeout(timeoutMs);
            DataInputStream in = new DataInputStream(ch.socket().getInputStream());
            int magic = in.readInt();
            in.readShort();
            short status = in.readShort();
            in.readInt();
            in.readInt();
            if (magic != Wire.MAGIC) throw new TransferException(label + " is not a kvlab tcp transport (bad magic)");
            if (status == Wire.HELLO_AUTH_FAILED)
                throw new TransferException(label + " refused the connection: auth token missing or wrong");
            if (status != Wire.HELLO_OK)
                throw new TransferException(label + " refused the connection: unsupported wire version");
            return ch;
        } catch (SocketTimeoutException e) {
            close(ch);
            throw new TransferException(
                    "cannot connect to " + label + ": no answer within " + timeoutMs + " ms (timed out)", e);
        } catch (EOFException e) {
            close(ch);
            throw new TransferException(
                    "cannot connect to " + label + ": it closed the connection during the hello", e);
        } catch (IOException e) {
            close(ch);
            throw new TransferException("cannot connect to " + label + ": " + describe(e), e);
        } catch (TransferException e) {
            close(ch);
            throw e;
        }
    }

    /** Asks the peer for a segment's wire id and size over a short-lived connection. */
    long[] open(String segment) {
        byte[] name = segment.getBytes(StandardCharsets.UTF_8);
        if (name.length > Wire.MAX_SEGMENT_NAME_BYTES)
            throw new IllegalArgumentException("segment name too long: " + segment);
        SocketChannel ch = dial();
        try {
            ByteBuffer req = ByteBuffer.allocate(Wire.REQUEST_BYTES + name.length);
            Wire.putRequest(req, Wire.OP_OPEN, 0, 1, 0, name.length);
            req.put(name).flip();
            Wire.writeFully(ch, req);
            DataInputStream in = new DataInputStream(ch.socket().getInputStream());
            byte status = in.readByte();
            in.readByte();
            in.readShort();
            int length = in.readInt();
            long tag = in.readLong();
            if (tag != 1 || length != Wire.OPEN_PAYLOAD_BYTES)
                throw new TransferException(label + " answered OPEN with a malformed response");
            int id = in.readInt();
            long size = in.readLong();
            if (status != Wire.ST_OK) throw new TransferException("no segment '" + segment + "' at " + label);
            return new long[] {id, size};
        } catch (SocketTimeoutException e) {
            throw new TransferException(label + " did not answer OPEN " + segment + " in time", e);
        } catch (IOException e) {
            throw new TransferException("cannot open segment '" + segment + "' at " + label + ": " + describe(e), e);
        } finally {
            close(ch);
        }
    }

    private static void close(SocketChannel ch) {
        if (ch == null) return;
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
