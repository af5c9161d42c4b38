package dev.kvlab.harness.openai.internal;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A stand-in OpenAI-compatible server on loopback that answers every streamed completion at once: one token chunk,
 * a final chunk with the usage, {@code [DONE]}, over a keep-alive connection. It does no work of its own worth
 * timing, so a request's time to first token through it is the harness's own send and receive path plus a loopback
 * round trip. A thread per connection; request heads and bodies are bounded.
 */
final class LoopbackSse implements AutoCloseable {

    private static final int MAX_BODY = 8 << 20;

    private final ServerSocket socket;
    private final boolean chat;
    private final Thread acceptor;
    private final java.util.concurrent.atomic.AtomicInteger connections =
            new java.util.concurrent.atomic.AtomicInteger();

    LoopbackSse(boolean chat) throws IOException {
        this.chat = chat;
        this.socket = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        this.acceptor = Thread.ofPlatform().name("kvlab-loopback-sse").daemon().start(this::serve);
    }

    URI base() {
        return URI.create("http://127.0.0.1:" + socket.getLocalPort());
    }

    /** Connections accepted so far. */
    int connections() {
        return connections.get();
    }

    private void serve() {
        while (!socket.isClosed()) {
            Socket s;
            try {
                s = socket.accept();
            } catch (IOException e) {
                return; // closed
            }
            connections.incrementAndGet();
            Thread.ofVirtual().name("kvlab-loopback-sse-conn").start(() -> connection(s));
        }
    }

    private void connection(Socket s) {
        try (s) {
            s.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            while (answer(in, out)) {
                // keep-alive: the next request on this connection
            }
        } catch (IOException e) {
            // a client gone
        }
    }

    /** Reads one request and answers it; false at the end of the connection. */
    private boolean answer(InputStream in, OutputStream out) throws IOException {
        long length = -1;
        int headBytes = 0;
        for (String h; (h = line(in)) != null; ) {
            if (h.isEmpty()) {
                if (length < 0) throw new IOException("no content-length");
                in.skipNBytes(length);
                out.write(response());
                out.flush();
                return true;
            }
            headBytes += h.length();
            if (headBytes > 64 << 10) throw new IOException("request head too long");
            if (h.regionMatches(true, 0, "content-length:", 0, 15)) {
                length = Long.parseLong(h.substring(15).strip());
                if (length > MAX_BODY) throw new IOException("request body too long");
            }
        }
        return false;
    }

    private byte[] response() {
        String token = chat
                ? "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\" a\"},\"finish_reason\":null}]}"
                : "{\"choices\":[{\"index\":0,\"text\":\" a\",\"finish_reason\":null}]}";
        String last = chat
                ? "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}"
                : "{\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}";
        StringBuilder sb = new StringBuilder(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
        for (String d : new String[] {token, last, "[DONE]"}) {
            String event = "data: " + d + "\n\n";
            sb.append(Integer.toHexString(event.getBytes(StandardCharsets.UTF_8).length))
                    .append("\r\n")
                    .append(event)
                    .append("\r\n");
        }
        return sb.append("0\r\n\r\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n')
                return sb.isEmpty() || sb.charAt(sb.length() - 1) != '\r'
                        ? sb.toString()
                        : sb.substring(0, sb.length() - 1);
            if (sb.length() > 16 << 10) throw new IOException("request line too long");
            sb.append((char) c);
        }
        return null;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
        acceptor.interrupt();
    }
}
