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
 * serves the engine's registered segments to any number of connections, one platform thread per connection.
 * A non-loopback bind requires an auth token. Connections beyond {@link #MAX_CONNECTIONS} are refused.
 */
final class TcpServer implements AutoCloseable {

    static final int MAX_CONNECTIONS = 512;

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
        InetAddress bind;
        try {
            bind = InetAddress.getByName(config.bindHost());
        } catch (IOException e) {
            throw new IllegalArgumentException("tcp: cannot resolve bind host '" + config.bindHost() + "': " + e.getMessage());
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
            throw new UncheckedIOException("tcp: cannot listen on " + config.bindHost() + ":" + port + ": " + e.getMessage(), e);
        }
        int boundPort = ((InetSocketAddress) listenerAddress()).getPort();
        String host = config.options().getOrDefault("tcp.advertiseHost",
                bind.isAnyLocalAddress() ? localHostAddress() : bind.getHostAddress());
        this.address = (host.contains(":") ? "[" + host + "]" : host) + ":" + boundPort;
        this.acceptor = Thread.ofPlatform().daemon().name("kvlab-tcp-accept-" + engineId).unstarted(this::acceptLoop);
        acceptor.start();
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
    String address() { return address; }

    TcpSegment register(String name, long bytes) {
        if (name == null || name.isEmpty() || name.contains("/") || name.contains("?") || name.contains("#") || name.length() > 200)
            throw new IllegalArgumentException("tcp segment names are 1..200 characters without '/', '?' or '#': '" + name + "'");
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

    TcpSegment segment(int id) { return segments.get(id); }

    TcpSegment segment(String name) { return byName.get(name); }

    TokenCheck tokens() { return tokens; }

    private volatile ByteBuffer zeros;

    /** {@code length} zero bytes: the payload of a READ that failed (the response size is fixed by the request). */
    ByteBuffer zeros(int length) {
        ByteBuffer z = zeros;
        if (z == null) zeros = z = ByteBuffer.allocateDirect(maxPayload).asReadOnlyBuffer();
        return z.duplicate().clear().limit(length);
    }

    TransportConfig config() { return config; }

    void abortConnectionsUsing(TcpSegment s) {
        for (ServerConnection c : connections) if (c.isUsing(s)) c.abort();
    }

    void finished(ServerConnection c) { connections.remove(c); }

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
            if (connections.size() >= MAX_CONNECTIONS) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // refused anyway
                }
                continue;
            }
            ServerConnection c = new ServerConnection(this, ch);
            connections.add(c);
            c.start();
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (ServerConnection c : connections) c.abort();
        for (TcpSegment s : segments.values()) s.close();
    }
}
