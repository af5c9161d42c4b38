package dev.kvlab.harness.openai.internal;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Flow;

/**
 * The streamed completions' HTTP/1.1 client: one thread per request in flight blocks on its socket and hands every
 * line to the request's {@link StreamedCompletion} the moment it is read, so a token's arrival is timed by the thread
 * that read it, with no hand-off in between (the JDK's {@code HttpClient} passes each read through a selector
 * thread and an executor, and costed milliseconds of CPU per request here). Keep-alive connections are pooled per
 * endpoint, as many as requests have been in flight at once, and used again within {@link #MAX_IDLE_NANOS} (servers
 * close idle ones after about 5 s). An endpoint found to close its connections after a streamed response though it
 * announced keep-alive (llama.cpp's server does) gets a new connection per request from then on, opened when the
 * previous request ends: a request is neither sent first into a dead connection and then again (measured: 1.3 ms more
 * TTFT each) nor kept waiting for a connect. Chunked and length-delimited bodies; status line,
 * headers and lines are bounded. Plain {@code http} only (engines on the cluster's network); {@code https}
 * endpoints go through {@link EngineClient}'s JDK client.
 */
final class StreamingHttp implements AutoCloseable {

    private static final int MAX_HEADER = 64 << 10;
    /** How long a pooled connection may have been idle and still be used. */
    static final long MAX_IDLE_NANOS = 3_000_000_000L;

    private record Idle(Socket socket, long since) {}

    private final ExecutorService threads;
    private final Map<String, ConcurrentLinkedDeque<Idle>> idle = new ConcurrentHashMap<>();
    /** Endpoints that closed a pooled connection before answering on it: they get a new one per request. */
    private final Set<String> noReuse = ConcurrentHashMap.newKeySet();

    private volatile boolean closed;
    private final java.util.concurrent.atomic.LongAdder resent = new java.util.concurrent.atomic.LongAdder();

    StreamingHttp(ExecutorService threads) {
        this.threads = threads;
    }

    /** Posts {@code body} to {@code base + path} and streams the response's lines into {@code sink} on a thread of its own. */
    void stream(URI base, String path, String body, int timeoutMillis, StreamedCompletion sink) {
        threads.execute(() -> exchange(base, path, body.getBytes(StandardCharsets.UTF_8), timeoutMillis, sink));
    }

    private void exchange(URI base, String path, byte[] body, int timeoutMillis, StreamedCompletion sink) {
        String key = base.getHost() + ":" + port(base);
        Socket s = null;
        boolean reusable = false;
        try {
            s = pooled(key);
            boolean fresh = s == null;
            if (fresh) s = open(base);
            Socket sock = s;
            sink.onSubscribe(new Flow.Subscription() {
                @Override
                public void request(long n) {}

                @Override
                public void cancel() {
                    closeQuietly(sock);
                }
            });
            sock.setSoTimeout(timeoutMillis);
            OutputStream out = sock.getOutputStream();
            String head = "POST " + path + " HTTP/1.1\r\nHost: " + key
                    + "\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n" + "Content-Length: "
                    + body.length + "\r\nConnection: keep-alive\r\n\r\n";
            try {
                out.write(head.getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
            } catch (SocketException e) {
                if (fresh) throw e;
                // a pooled connection the server had closed: once more on a new one
                noReuse.add(key);
                resent.increment();
                closeQuietly(sock);
                exchange(base, path, body, timeoutMillis, sink);
                return;
            }
            try {
                reusable = read(new BufferedInputStream(sock.getInputStream(), 1 << 16), sink);
            } catch (Closed e) {
                if (fresh) throw new IOException("the server closed the connection without answering");
                // a pooled connection the server closed (its keep-alive limit): once more on a new one
                noReuse.add(key);
                resent.increment();
                closeQuietly(sock);
                exchange(base, path, body, timeoutMillis, sink);
                return;
            }
            if (reusable && !closed && !noReuse.contains(key)) {
                // back in the pool before the sink hears the end: a request sent on that news finds it there
                idle.computeIfAbsent(key, k -> new ConcurrentLinkedDeque<>()).push(new Idle(s, System.nanoTime()));
                s = null;
            } else if (!closed && noReuse.contains(key)) {
                closeQuietly(s);
                s = null;
                spare(base, key);
            }
            sink.onComplete();
        } catch (IOException | RuntimeException e) {
            sink.onError(e);
        } finally {
            if (s != null) closeQuietly(s);
        }
    }

    /** Requests sent again on a new connection after a pooled one turned out closed by the server. */
    long resent() {
        return resent.sum();
    }

    /**
     * Opens a connection for the next request to an endpoint that takes one per request, so its connect is not on that
     * request's clock; one spare per endpoint at most (llama-server serves 4 connections at once by default).
     */
    private void spare(URI base, String key) {
        ConcurrentLinkedDeque<Idle> q = idle.get(key);
        if (q != null && !q.isEmpty()) return; // one at most: an idle connection holds one of the server's HTTP threads
        try {
            Socket spare = open(base);
            if (closed) closeQuietly(spare);
            else idle.computeIfAbsent(key, k -> new ConcurrentLinkedDeque<>()).push(new Idle(spare, System.nanoTime()));
        } catch (IOException e) {
            // the next request connects itself, and fails on its own if the endpoint is gone
        }
    }

    private Socket pooled(String key) {
        ConcurrentLinkedDeque<Idle> q = idle.get(key);
        Idle i;
        while (q != null && (i = q.poll()) != null) {
            if (!i.socket().isClosed() && System.nanoTime() - i.since() < MAX_IDLE_NANOS) return i.socket();
            closeQuietly(i.socket());
        }
        return null;
    }

    private static int port(URI u) {
        return u.getPort() > 0 ? u.getPort() : 80;
    }

    private static Socket open(URI base) throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(base.getHost(), port(base)), 3000);
        return s;
    }

    /** Reads the response into {@code sink}; true when the connection may be reused. */
    private static boolean read(InputStream in, StreamedCompletion sink) throws IOException {
        String status;
        try {
            status = line(in, MAX_HEADER);
        } catch (SocketException e) {
            throw new Closed();
        }
        if (status == null) throw new Closed();
        if (!status.startsWith("HTTP/1.")) throw new IOException("not an HTTP response: " + abbreviate(status));
        String[] parts = status.split(" ", 3);
        int code;
        try {
            code = Integer.parseInt(parts[1]);
        } catch (RuntimeException e) {
            throw new IOException("bad status line: " + abbreviate(status));
        }
        sink.status(code);
        long length = -1;
        boolean chunked = false, keepAlive = status.startsWith("HTTP/1.1");
        int headerBytes = 0;
        for (String h; (h = line(in, MAX_HEADER)) != null && !h.isEmpty(); ) {
            headerBytes += h.length();
            if (headerBytes > MAX_HEADER) throw new IOException("response headers over " + MAX_HEADER + " bytes");
            int colon = h.indexOf(':');
            if (colon < 0) continue;
            String name = h.substring(0, colon).strip().toLowerCase(Locale.ROOT),
                    value = h.substring(colon + 1).strip();
            switch (name) {
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" ->
                    chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "connection" -> keepAlive = !value.equalsIgnoreCase("close");
                default -> {}
            }
        }
        Lines lines = new Lines(sink);
        if (chunked) {
            while (true) {
                String size = line(in, 256);
                if (size == null) throw new IOException("the response ended inside a chunked body");
                int semi = size.indexOf(';');
                long n = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).strip(), 16);
                if (n == 0) {
                    while (true) {
                        String trailer = line(in, MAX_HEADER);
                        if (trailer == null || trailer.isEmpty()) break;
                    }
                    break;
                }
                copy(in, n, lines);
                if (line(in, 2) == null) throw new IOException("the response ended inside a chunk");
            }
        } else if (length >= 0) {
            copy(in, length, lines);
        } else {
            copy(in, Long.MAX_VALUE, lines);
            keepAlive = false;
        }
        lines.end();
        return keepAlive;
    }

    private static void copy(InputStream in, long n, Lines lines) throws IOException {
        byte[] buf = new byte[8192];
        long left = n;
        while (left > 0) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, left));
            if (r < 0) {
                if (n == Long.MAX_VALUE) return;
                throw new IOException("the response ended " + left + " bytes early");
            }
            lines.feed(buf, r);
            left -= r;
        }
    }

    /** A CRLF- or LF-terminated line of at most {@code max} bytes (ASCII), null at the end of the stream. */
    private static String line(InputStream in, int max) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                int len = sb.length();
                if (len > 0 && sb.charAt(len - 1) == '\r') sb.setLength(len - 1);
                return sb.toString();
            }
            if (sb.length() >= max) throw new IOException("a header line over " + max + " bytes");
            sb.append((char) c);
        }
        return sb.isEmpty() ? null : sb.toString();
    }

    /** Splits body bytes into UTF-8 lines for the sink, each bounded by {@link EngineClient#MAX_BODY}. */
    private static final class Lines {
        private final StreamedCompletion sink;
        private final ByteArrayOutputStream cur = new ByteArrayOutputStream(512);

        Lines(StreamedCompletion sink) {
            this.sink = sink;
        }

        void feed(byte[] b, int n) throws IOException {
            int from = 0;
            for (int i = 0; i < n; i++) {
                if (b[i] != '\n') continue;
                cur.write(b, from, i - from);
                emit();
                from = i + 1;
            }
            cur.write(b, from, n - from);
            if (cur.size() > EngineClient.MAX_BODY)
                throw new IOException("a streamed line over " + EngineClient.MAX_BODY + " bytes");
        }

        private void emit() {
            byte[] a = cur.toByteArray();
            int len = a.length > 0 && a[a.length - 1] == '\r' ? a.length - 1 : a.length;
            cur.reset();
            sink.onNext(new String(a, 0, len, StandardCharsets.UTF_8));
        }

        void end() {
            if (cur.size() > 0) emit();
        }
    }

    /** The connection ended before a status line: the server had closed it. */
    private static final class Closed extends IOException {
        Closed() {
            super("closed before the status line");
        }
    }

    private static String abbreviate(String s) {
        return s == null ? "nothing" : s.length() <= 120 ? s : s.substring(0, 120) + "...";
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() {
        closed = true;
        for (ConcurrentLinkedDeque<Idle> q : idle.values())
            for (Idle i; (i = q.poll()) != null; ) closeQuietly(i.socket());
    }
}
