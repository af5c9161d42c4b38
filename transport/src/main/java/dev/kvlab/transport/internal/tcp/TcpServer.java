package dev.kvlab.transport.internal.tcp;

import dev.kvlab.transport.api.TransportConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The target side of the tcp transport: listens on {@link TransportConfig#bindHost()} (loopback by default),
 * serves the engine's registered segments, one platform thread per connection. A non-loopback bind requires an
 * auth token.
 *
 * <p>Bounded against hostile or careless peers (WIRE.md, "Limits"): at most {@code tcp.maxConnections} connections
 * (default {@value #MAX_CONNECTIONS}) and {@code tcp.maxConnectionsPerPeer} per peer address (default
 * {@value #MAX_CONNECTIONS_PER_PEER}). At a limit, room is made by closing, in this order, the newest connection
 * still in its hello (unauthenticated), the connection whose frame has stalled longest (in progress for more than a
 * quarter of the frame deadline), the newest idle one; when every connection is busy with a fresh frame the new one
 * is refused. A watchdog closes any connection whose hello or current frame is not done within the frame deadline
 * ({@code tcp.frameTimeoutMs}, default {@code min(timeout, 5 s)}).
 */
final class TcpServer implements AutoCloseable {

    static final int MAX_CONNECTIONS = 512;
    static final int MAX_CONNECTIONS_PER_PEER = 256;

    private final int maxConnections;
    private final int maxPerPeer;
    private final long frameDeadlineNanos;
    private final Thread watchdog;
    private long accepted;
    private final java.util.concurrent.atomic.AtomicLong refused = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong evicted = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong timedOut = new java.util.concurrent.atomic.AtomicLong();

    private final TransportConfig config;
    private final ServerSocketChannel listener;
    private final String address;
    private final TokenCheck tokens;
    final int maxPayload;
    private final ConcurrentHashMap<Integer, TcpSegment> segments = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, TcpSegment> byName = new ConcurrentHashMap<>();
    private final Set<ServerConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger nextId = new AtomicInteger(1);
    private final Thread acceptor;
    private volatile boolean closed;

    TcpServer(TransportConfig config, String engineId) {
        this.config = config;
        this.maxPayload = TcpTransferEngine.maxPayload(config);
        this.tokens = new TokenCheck(config.authToken());
        this.maxConnections = TcpTransferEngine.intOption(config, "tcp.maxConnections", MAX_CONNECTIONS, 1, 65_536);
        this.maxPerPeer = TcpTransferEngine.intOption(
                config, "tcp.maxConnectionsPerPeer", Math.min(MAX_CONNECTIONS_PER_PEER, maxConnections), 1, 65_536);
        int frameMs = TcpTransferEngine.intOption(
                config,
                "tcp.frameTimeoutMs",
                (int) Math.max(1, Math.min(config.timeout().toMillis(), 5_000)),
                1,
                3_600_000);
        this.frameDeadlineNanos = frameMs * 1_000_000L;
        InetAddress bind;
        try {
            bind = InetAddress.getByName(config.bindHost());
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "tcp: cannot resolve bind host '" + config.bindHost() + "': " + e.getMessage());
        }
        if (!bind.isLoopbackAddress() && !tokens.required())
            throw new IllegalArgumentException("tcp: binding to the non-loopback address " + config.bindHost()
                    + " requires an auth token (TransportConfig.authToken)");
        int port = TcpTransferEngine.intOption(config, "tcp.port", 0, 0, 65535);
        try {
            listener = ServerSocketChannel.open();
            listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            listener.bind(new InetSocketAddress(bind, port), 128);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "tcp: cannot listen on " + config.bindHost() + ":" + port + ": " + e.getMessage(), e);
        }
        int boundPort = ((InetSocketAddress) listenerAddress()).getPort();
        String host = config.options()
                .getOrDefault(
                        "tcp.advertiseHost", bind.isAnyLocalAddress() ? localHostAddress() : bind.getHostAddress());
        this.address = (host.contains(":") ? "[" + host + "]" : host) + ":" + boundPort;
        this.acceptor = Thread.ofPlatform()
                .daemon()
                .name("kvlab-tcp-accept-" + engineId)
                .unstarted(this::acceptLoop);
        acceptor.start();
        this.watchdog = Thread.ofPlatform()
                .daemon()
                .name("kvlab-tcp-watchdog-" + engineId)
                .unstarted(this::watchLoop);
        watchdog.start();
    }

    /** Connections refused at a limit, closed to make room, and closed by the frame deadline, since start. */
    record Limits(long refused, long evicted, long timedOut) {}

    Limits limits() {
        return new Limits(refused.get(), evicted.get(), timedOut.get());
    }

    int connectionCount() {
        return connections.size();
    }

    private java.net.SocketAddress listenerAddress() {
        try {
            return listener.getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String localHostAddress() {
        try {
            return InetAddress.getLocalHost().getHostAddress();
        } catch (IOException e) {
            return "127.0.0.1";
        }
    }

    /** {@code host:port} as peers should dial it. */
    String address() {
        return address;
    }

    TcpSegment register(String name, long bytes) {
        if (name == null
                || name.isEmpty()
                || name.contains("/")
                || name.contains("?")
                || name.contains("#")
                || name.length() > 200)
            throw new IllegalArgumentException(
                    "tcp segment names are 1..200 characters without '/', '?' or '#': '" + name + "'");
        if (bytes <= 0) throw new IllegalArgumentException("segment size must be > 0, got " + bytes);
        int id = nextId.getAndIncrement();
        TcpSegment s = new TcpSegment(this, id, name, bytes, address);
        if (byName.putIfAbsent(name, s) != null) {
            s.close();
            throw new IllegalArgumentException("segment already registered: " + name);
        }
        segments.put(id, s);
        return s;
    }

    void unregister(TcpSegment s) {
        segments.remove(s.id, s);
        byName.remove(s.handle().segment(), s);
    }

    TcpSegment segment(int id) {
        return segments.get(id);
    }

    TcpSegment segment(String name) {
        return byName.get(name);
    }

    TokenCheck tokens() {
        return tokens;
    }

    private volatile ByteBuffer zeros;

    /** {@code length} zero bytes: the payload of a READ that failed (the response size is fixed by the request). */
    ByteBuffer zeros(int length) {
        ByteBuffer z = zeros;
        if (z == null) zeros = z = ByteBuffer.allocateDirect(maxPayload).asReadOnlyBuffer();
        return z.duplicate().clear().limit(length);
    }

    TransportConfig config() {
        return config;
    }

    void abortConnectionsUsing(TcpSegment s) {
        for (ServerConnection c : connections) if (c.isUsing(s)) c.abort();
    }

    void finished(ServerConnection c) {
        connections.remove(c);
    }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel ch;
            try {
                ch = listener.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (closed) return;
                continue; // e.g. too many open files: keep serving the connections we have
            }
            InetAddress peer = peerOf(ch);
            if (!admit(peer)) {
                refused.incrementAndGet();
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // refused anyway
                }
                continue;
            }
            ServerConnection c = new ServerConnection(this, ch, ++accepted, peer);
            connections.add(c);
            c.start();
        }
    }

    private static InetAddress peerOf(SocketChannel ch) {
        try {
            return ch.getRemoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Makes room for one more connection from {@code peer} under both limits, closing victims; false when there is none. */
    private boolean admit(InetAddress peer) {
        if (connections.size() >= maxConnections && !evictOne(null)) return false;
        if (connections.size() + 1 > maxPerPeer) { // only then can one peer be at its limit
            int mine = 0;
            for (ServerConnection c : connections) if (java.util.Objects.equals(c.peer, peer)) mine++;
            if (mine >= maxPerPeer && !evictOne(peer)) return false;
        }
        return true;
    }

    /**
     * Closes one connection (of {@code peer}, or any when null): the newest unauthenticated, else the longest stalled
     * frame, else the newest idle. False when every candidate is busy with a fresh frame.
     */
    private boolean evictOne(InetAddress peer) {
        long now = System.nanoTime();
        ServerConnection hello = null, stalled = null, idle = null;
        for (ServerConnection c : connections) {
            if (peer != null && !peer.equals(c.peer)) continue;
            if (!c.authenticated()) {
                if (hello == null || c.seq > hello.seq) hello = c;
                continue;
            }
            long f = c.frameStart();
            if (f == 0) {
                if (idle == null || c.seq > idle.seq) idle = c;
            } else if (now - f > frameDeadlineNanos / 4 && (stalled == null || f < stalled.frameStart())) stalled = c;
        }
        ServerConnection victim = hello != null ? hello : stalled != null ? stalled : idle;
        if (victim == null) return false;
        connections.remove(victim);
        victim.abort();
        evicted.incrementAndGet();
        return true;
    }

    /** Closes connections whose hello or current frame outlived the frame deadline. */
    private void watchLoop() {
        long tickMs = Math.max(1, Math.min(250, frameDeadlineNanos / 4_000_000));
        while (!closed) {
            try {
                Thread.sleep(tickMs);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (ServerConnection c : connections) {
                long f = c.authenticated() ? c.frameStart() : c.acceptedAt;
                if (f != 0 && now - f > frameDeadlineNanos) {
                    connections.remove(c);
                    c.abort();
                    timedOut.incrementAndGet();
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        watchdog.interrupt();
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (ServerConnection c : connections) c.abort();
        for (TcpSegment s : segments.values()) s.close();
    }
}
