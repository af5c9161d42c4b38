package dev.kvlab.store.internal.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The blocking HTTP/1.1 transport of etcd's unary calls: answers by length, chunked and to the end of the stream are
 * read whole; a kept-alive connection is reused; one etcd closed while it was idle is replaced once, silently; a
 * connection that cannot be made is an {@link IOException}.
 */
class EtcdHttpTest {

    private static EtcdHttp.Parsed parse(String raw) throws IOException {
        return EtcdHttp.readResponse(new ByteArrayInputStream(raw.getBytes(StandardCharsets.ISO_8859_1)));
    }

    @Test
    void answersAreReadByLengthChunkedOrToTheEnd() throws IOException {
        EtcdHttp.Parsed a =
                parse("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}");
        assertThat(a.response().status()).isEqualTo(200);
        assertThat(new String(a.response().body(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
        assertThat(a.close()).isFalse();

        EtcdHttp.Parsed c = parse(
                "HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4;x=y\r\n\":2}\r\n0\r\n\r\n");
        assertThat(c.response().status()).isEqualTo(400);
        assertThat(new String(c.response().body(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":2}");

        EtcdHttp.Parsed e = parse("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{}");
        assertThat(e.close()).isTrue();
        assertThat(new String(e.response().body(), StandardCharsets.UTF_8)).isEqualTo("{}");

        assertThatThrownBy(() -> parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}"))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> parse("SSH-2.0\r\n\r\n")).isInstanceOf(IOException.class);
    }

    /** A server that answers each request with its number, closing each connection after {@code perConnection} answers. */
    private static final class Server implements AutoCloseable {
        final ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final AtomicInteger connections = new AtomicInteger(), requests = new AtomicInteger();
        final List<String> bodies = new ArrayList<>();
        final Thread t;

        Server(int perConnection) throws IOException {
            t = Thread.ofPlatform().daemon().start(() -> {
                while (!ss.isClosed()) {
                    try (Socket s = ss.accept()) {
                        connections.incrementAndGet();
                        InputStream in = s.getInputStream();
                        OutputStream out = s.getOutputStream();
                        for (int i = 0; i < perConnection; i++) {
                            int length = 0;
                            for (String h = line(in); !h.isEmpty(); h = line(in))
                                if (h.toLowerCase().startsWith("content-length:"))
                                    length = Integer.parseInt(h.substring(15).trim());
                            String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
                            synchronized (bodies) {
                                bodies.add(body);
                            }
                            String answer = "{\"n\":" + requests.incrementAndGet() + "}";
                            out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + answer.length() + "\r\n\r\n" + answer)
                                    .getBytes(StandardCharsets.ISO_8859_1));
                            out.flush();
                        }
                    } catch (IOException e) {
                        // next connection
                    }
                }
            });
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + ss.getLocalPort());
        }

        private static String line(InputStream in) throws IOException {
            StringBuilder b = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) throw new IOException("closed");
                if (c != '\r') b.append((char) c);
            }
            return b.toString();
        }

        @Override
        public void close() throws IOException {
            ss.close();
        }
    }

    @Test
    void aKeptAliveConnectionIsReusedAndOneClosedWhileIdleIsReplacedOnce() throws Exception {
        try (Server keep = new Server(1000);
                EtcdHttp http = new EtcdHttp(Duration.ofSeconds(5))) {
            for (int i = 1; i <= 5; i++) {
                EtcdHttp.Response r = http.post(keep.uri(), "/v3/kv/txn", ("{\"i\":" + i + "}").getBytes());
                assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":" + i + "}");
            }
            assertThat(keep.connections.get()).as("one connection for all five").isEqualTo(1);
            assertThat(keep.bodies).containsExactly("{\"i\":1}", "{\"i\":2}", "{\"i\":3}", "{\"i\":4}", "{\"i\":5}");
        }
        try (Server once = new Server(1); // closes each connection after one answer (without saying so)
                EtcdHttp http = new EtcdHttp(Duration.ofSeconds(5))) {
            for (int i = 1; i <= 3; i++)
                assertThat(http.post(once.uri(), "/x", "{}".getBytes()).status())
                        .isEqualTo(200);
            assertThat(once.requests.get()).as("each request answered once").isEqualTo(3);
            assertThat(once.connections.get()).isEqualTo(3);
        }
    }

    @Test
    void anEndpointNobodyListensOnIsAnIoException() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (EtcdHttp http = new EtcdHttp(Duration.ofSeconds(2))) {
            assertThatThrownBy(() -> http.post(URI.create("http://127.0.0.1:" + port), "/x", new byte[0]))
                    .isInstanceOf(IOException.class);
            assertThatThrownBy(() -> http.post(URI.create("https://127.0.0.1:" + port), "/x", new byte[0]))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("http://");
        }
    }

    @Test
    void aStreamedAnswerIsReadAsItArrivesAndEndsWhenClosed() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                EtcdHttp http = new EtcdHttp(Duration.ofSeconds(2))) {
            java.util.concurrent.CountDownLatch second = new java.util.concurrent.CountDownLatch(1);
            Thread server = Thread.ofPlatform().daemon().start(() -> {
                try (Socket s = ss.accept()) {
                    OutputStream out = s.getOutputStream();
                    out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n2\r\n1}\r\n"
                            .getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    second.await();
                    out.write("7\r\n{\"b\":2}\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    Thread.sleep(30_000); // a watch stays open
                } catch (Exception e) {
                    // the client closed it
                }
            });
            EtcdHttp.Stream st =
                    http.stream(URI.create("http://127.0.0.1:" + ss.getLocalPort()), "/v3/watch", new byte[0]);
            assertThat(st.status()).isEqualTo(200);
            byte[] first = st.body().readNBytes(7);
            assertThat(new String(first, StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
            second.countDown();
            assertThat(new String(st.body().readNBytes(7), StandardCharsets.UTF_8))
                    .isEqualTo("{\"b\":2}");
            Thread closer = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
                st.close();
            });
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> st.body().read())
                    .as("a read blocked on a quiet stream ends when it is closed")
                    .isInstanceOf(IOException.class);
            assertThat(System.nanoTime() - t0).isLessThan(10_000_000_000L);
            closer.join();
            server.interrupt();
        }
    }

    @Test
    void anEtcdThatDoesNotAnswerWithinTheDeadlineIsOneTimeoutNotTwo() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
                EtcdHttp http = new EtcdHttp(Duration.ofMillis(300))) {
            List<Socket> accepted = new ArrayList<>();
            Thread acceptor = Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (true) accepted.add(silent.accept()); // reads nothing, answers nothing
                } catch (IOException e) {
                    // closed
                }
            });
            URI at = URI.create("http://127.0.0.1:" + silent.getLocalPort());
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> http.post(at, "/x", "{}".getBytes()))
                    .isInstanceOf(java.net.SocketTimeoutException.class);
            assertThat(System.nanoTime() - t0).isLessThan(5_000_000_000L);
            silent.close();
            acceptor.join(2000);
            for (Socket s : accepted) s.close();
        }
    }
}
