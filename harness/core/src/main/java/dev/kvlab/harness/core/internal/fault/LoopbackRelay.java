package dev.kvlab.harness.core.internal.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on loopback in front of one server (a master's way to etcd in a {@code master-partition} cell): it
 * forwards every connection, byte for byte, until {@link #cut()}, which resets the open connections and refuses new
 * ones (a partition: the process behind it runs on, it only cannot reach the server), until {@link #heal()}.
 */
final class LoopbackRelay implements AutoCloseable {

    private final ServerSocket listen;
    private final int targetPort;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile boolean cut;
    private volatile boolean closed;

    LoopbackRelay(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listen = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("kvlab-relay-accept").start(this::accept);
    }

    int port() {
        return listen.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            Socket in;
            try {
                in = listen.accept();
            } catch (IOException e) {
                return;
            }
            if (cut) {
                reset(in);
                continue;
            }
            try {
                Socket out = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                open.add(in);
                open.add(out);
                Thread.ofVirtual().start(() -> pump(in, out));
                Thread.ofVirtual().start(() -> pump(out, in));
            } catch (IOException e) {
                reset(in);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buf = new byte[16 << 10];
        try (InputStream i = from.getInputStream();
                OutputStream o = to.getOutputStream()) {
            for (int n; (n = i.read(buf)) >= 0; ) o.write(buf, 0, n);
        } catch (IOException ignored) {
            // the other side went, or the relay was cut
        } finally {
            reset(from);
            reset(to);
        }
    }

    private void reset(Socket s) {
        open.remove(s);
        try {
            s.setSoLinger(true, 0); // RST: the peer sees the connection die, as on a partition's timeout
            s.close();
        } catch (IOException ignored) {
            // gone already
        }
    }

    /** Cuts every connection and refuses new ones. */
    void cut() {
        cut = true;
        for (Socket s : open) reset(s);
    }

    /** Forwards again. */
    void heal() {
        cut = false;
    }

    @Override
    public void close() {
        closed = true;
        cut();
        try {
            listen.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
