package dev.kvlab.store;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for a child process (etcd, Redis, InfluxDB) that must be told its port before it binds. A port the
 * kernel hands out for {@code bind(0)} lies in its ephemeral range, which outgoing connections draw their local ports
 * from too: between the probe's close and the child's bind, any connection may take it ("address already in use").
 * These ports are drawn below that range, so only another explicit bind can race for them, and are checked free;
 * {@link #lostRace(String)} tells a caller whose child still lost such a race to draw again.
 */
public final class LoopbackPorts {

    private static final int LOWEST = 20_000;

    private LoopbackPorts() {}

    /** {@code n} distinct ports, each free on 127.0.0.1 when checked. */
    public static int[] free(int n) {
        int below = ephemeralLow();
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) ports[i] = hold(held, below);
            return ports;
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // a probe socket
                }
            }
        }
    }

    /** One free port ({@link #free(int)}). */
    public static int free() {
        return free(1)[0];
    }

    /** Whether a child's log says it could not bind its port: draw new ports and start it again. */
    public static boolean lostRace(String log) {
        return log != null && log.toLowerCase(java.util.Locale.ROOT).contains("address already in use");
    }

    private static int hold(List<ServerSocket> held, int below) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 200 && below > LOWEST + 100; attempt++) {
            int port = LOWEST + r.nextInt(below - LOWEST);
            ServerSocket s = tryBind(port);
            if (s != null) {
                held.add(s);
                return port;
            }
        }
        ServerSocket s = tryBind(0); // no room below the ephemeral range: the kernel's choice
        if (s == null) throw new UncheckedIOException(new IOException("no free loopback port"));
        held.add(s);
        return s.getLocalPort();
    }

    private static ServerSocket tryBind(int port) {
        try {
            ServerSocket s = new ServerSocket();
            try {
                s.bind(new InetSocketAddress("127.0.0.1", port));
                return s;
            } catch (IOException e) {
                s.close();
                return null;
            }
        } catch (IOException e) {
            return null;
        }
    }

    private static int ephemeralLow() {
        // read as a stream: a /proc file reports size 0, and a size-based read returns a first fragment only
        try (BufferedReader in = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
            String[] range = in.readLine().trim().split("\\s+");
            return Integer.parseInt(range[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768; // Linux's default
        }
    }
}
