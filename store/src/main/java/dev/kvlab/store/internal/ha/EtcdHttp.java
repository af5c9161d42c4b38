package dev.kvlab.store.internal.ha;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * Blocking HTTP/1.1 POSTs to etcd's JSON gateway over kept-alive sockets (an idle pool per endpoint): the unary calls
 * of {@link EtcdClient}. The calling thread writes the request and reads the answer itself. The JDK's
 * {@code HttpClient} hands every exchange between the caller, its selector thread and its executor, which cost the
 * leader about as much CPU per oplog batch as encoding it (measured in docs/store-ha.md); a watch's endless stream
 * ({@link #stream}) is read by its own thread on a connection of its own. Each connect and each read waits at most the deadline. An exchange that fails on a
 * reused connection (etcd closed it while idle; not a timeout) is made once more on a new one: the same as the caller's own retry of
 * an unreachable etcd (an oplog batch written twice is the same key and value, which a standby applies once).
 * Thread-safe.
 */
final class EtcdHttp implements AutoCloseable {

    /** An answer: its HTTP status and body. */
    record Response(int status, byte[] body) {}

    /** Largest answer accepted (etcd's own request limit is 1.5 MiB; a range of a snapshot chunk is base64 of 1 MiB). */
    static final int MAX_BODY = 64 << 20;

    private static final class Conn {
        final Socket socket;
        final InputStream in;
        final OutputStream out;

        Conn(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new BufferedInputStream(socket.getInputStream(), 16 << 10);
            this.out = socket.getOutputStream();
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    private final int deadlineMillis;
    private final Map<String, ConcurrentLinkedDeque<Conn>> idle = new ConcurrentHashMap<>();
    private volatile boolean closed;

    EtcdHttp(Duration deadline) {
        this.deadlineMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, deadline.toMillis()));
    }

    /** POSTs {@code body} (JSON) to {@code path} of {@code endpoint} ({@code http://HOST:PORT}). */
    Response post(URI endpoint, String path, byte[] body) throws IOException {
        if (closed) throw new IOException("etcd client closed");
        String authority = endpoint.getHost() + ":" + endpoint.getPort();
        ConcurrentLinkedDeque<Conn> pool = idle.computeIfAbsent(authority, a -> new ConcurrentLinkedDeque<>());
        Conn c = pool.pollFirst();
        if (c != null) {
            try {
                return exchange(c, pool, authority, path, body);
            } catch (java.net.SocketTimeoutException slow) {
                c.close(); // etcd did not answer within the deadline: no second wait
                throw slow;
            } catch (IOException stale) {
                c.close(); // etcd may have closed it while it was idle: once more on a new connection
            }
        }
        c = open(endpoint);
        try {
            return exchange(c, pool, authority, path, body);
        } catch (IOException e) {
            c.close();
            throw e;
        }
    }

    /** A streamed answer (a watch): its status, and its body, which ends when {@link #close()} closes the connection. */
    record Stream(int status, InputStream body, Socket socket) implements AutoCloseable {
        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    /**
     * POSTs {@code body} to {@code path} of {@code endpoint} on a connection of its own and returns the answer's body as
     * it arrives, with no read deadline (a watch's stream is quiet while nothing changes); the connection ends with
     * {@link Stream#close()}. The caller's thread reads it directly (no hand-off between threads per chunk).
     */
    Stream stream(URI endpoint, String path, byte[] body) throws IOException {
        Conn c = open(endpoint);
        try {
            c.out.write(request(endpoint.getHost() + ":" + endpoint.getPort(), path, body));
            c.out.flush();
            Head h = readHead(c.in);
            c.socket.setSoTimeout(0);
            InputStream in = h.chunked()
                    ? new Chunked(c.in)
                    : h.length() >= 0 && h.length() <= MAX_BODY
                            ? new java.io.ByteArrayInputStream(c.in.readNBytes((int) h.length()))
                            : c.in;
            return new Stream(h.status(), in, c.socket);
        } catch (IOException e) {
            c.close();
            throw e;
        }
    }

    /** The body of a chunked answer, as it arrives (end of stream after the last chunk). */
    private static final class Chunked extends InputStream {
        private final InputStream in;
        private int left;
        private boolean done;

        Chunked(InputStream in) {
            this.in = in;
        }

        private boolean next() throws IOException {
            if (done) return false;
            if (left == 0) {
                String size = line(in);
                if (size.isEmpty()) size = line(in); // the CRLF after the previous chunk
                int semi = size.indexOf(';');
                left = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                if (left == 0) {
                    done = true;
                    return false;
                }
            }
            return true;
        }

        @Override
        public int read() throws IOException {
            if (!next()) return -1;
            int b = in.read();
            if (b < 0) throw new EOFException("etcd closed the stream inside a chunk");
            left--;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) return 0;
            if (!next()) return -1;
            int n = in.read(b, off, Math.min(len, left));
            if (n < 0) throw new EOFException("etcd closed the stream inside a chunk");
            left -= n;
            return n;
        }
    }

    private Conn open(URI endpoint) throws IOException {
        if (!"http".equalsIgnoreCase(endpoint.getScheme()))
            throw new IOException("only http:// etcd endpoints are supported, not " + endpoint);
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), deadlineMillis);
            s.setSoTimeout(deadlineMillis);
            return new Conn(s);
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    private Response exchange(Conn c, ConcurrentLinkedDeque<Conn> pool, String authority, String path, byte[] body)
            throws IOException {
        c.out.write(request(authority, path, body));
        c.out.flush();
        Parsed p = readResponse(c.in);
        if (p.close() || closed) c.close(); // the answer said the connection ends with it
        else pool.offerFirst(c);
        return p.response();
    }

    private static byte[] request(String authority, String path, byte[] body) {
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: " + authority
                        + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        byte[] req = new byte[head.length + body.length];
        System.arraycopy(head, 0, req, 0, head.length);
        System.arraycopy(body, 0, req, head.length, body.length);
        return req;
    }

    /** An answer's status line and headers: its status, its length (-1: not given), chunked, whether the connection ends. */
    private record Head(int status, long length, boolean chunked, boolean close) {}

    private static Head readHead(InputStream in) throws IOException {
        String status = line(in);
        if (!status.startsWith("HTTP/1.")) throw new IOException("not an HTTP/1.x answer: " + status);
        int sp = status.indexOf(' ');
        int code;
        try {
            code = Integer.parseInt(status.substring(sp + 1, sp + 4));
        } catch (RuntimeException e) {
            throw new IOException("bad HTTP status line: " + status);
        }
        long length = -1;
        boolean chunked = false, close = status.startsWith("HTTP/1.0");
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            int colon = h.indexOf(':');
            if (colon < 0) continue;
            String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = h.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
            switch (name) {
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.contains("chunked");
                case "connection" -> close = value.contains("close") || (close && !value.contains("keep-alive"));
                default -> {}
            }
        }
        return new Head(code, length, chunked, close);
    }

    /**
     * Reads one HTTP/1.1 answer from {@code in}: its status and body (by Content-Length, chunked, or to the end of the
     * stream); {@link IOException} on anything malformed.
     */
    static Parsed readResponse(InputStream in) throws IOException {
        Head h = readHead(in);
        long length = h.length();
        boolean chunked = h.chunked(), close = h.close();
        int code = h.status();
        byte[] body;
        if (chunked) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            while (true) {
                String size = line(in);
                int semi = size.indexOf(';');
                int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                if (n == 0) {
                    while (!line(in).isEmpty()) {} // trailers
                    break;
                }
                if (b.size() + n > MAX_BODY) throw new IOException("etcd's answer is over " + MAX_BODY + " bytes");
                b.write(in.readNBytes(n), 0, n);
                if (!line(in).isEmpty()) throw new IOException("bad chunk end");
            }
            body = b.toByteArray();
        } else if (length >= 0) {
            if (length > MAX_BODY) throw new IOException("etcd's answer is over " + MAX_BODY + " bytes");
            body = in.readNBytes((int) length);
            if (body.length < length) throw new EOFException("etcd's answer ended early");
        } else {
            body = in.readNBytes(MAX_BODY); // to the end of the stream
            close = true;
        }
        return new Parsed(new Response(code, body), close);
    }

    /** An answer, and whether its connection ends with it. */
    record Parsed(Response response, boolean close) {}

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder(64);
        while (true) {
            int c = in.read();
            if (c < 0) throw new EOFException("etcd closed the connection");
            if (c == '\n') break;
            if (c != '\r') b.append((char) c);
            if (b.length() > 16 << 10) throw new IOException("HTTP line too long");
        }
        return b.toString();
    }

    @Override
    public void close() {
        closed = true;
        for (ConcurrentLinkedDeque<Conn> pool : idle.values())
            for (Conn c = pool.pollFirst(); c != null; c = pool.pollFirst()) c.close();
    }
}
