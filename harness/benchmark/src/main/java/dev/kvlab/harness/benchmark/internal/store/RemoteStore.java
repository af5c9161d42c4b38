package dev.kvlab.harness.benchmark.internal.store;

import dev.kvlab.harness.benchmark.api.BenchFailedException;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.GetStatus;
import dev.kvlab.store.api.KvBackend;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * One error mapping for a remote store ({@code kvlab://HOST:PORT}, {@code redis://HOST:PORT}) a command is pointed at:
 * before any measurement, the cause of a failure in words — <b>unreachable</b> (nothing listens there: known within
 * seconds by a plain TCP connect, not after an RPC's retries), <b>not a kvlab store</b> (something listens but does
 * not answer as one, e.g. an HTTP server), <b>token refused</b> (the master wants another token, or one was not
 * given), or <b>timeout</b>. Failures are {@link BenchFailedException} (exit 1) with the target in front.
 */
public final class RemoteStore {

    /** How long a TCP connect to the target may take. */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(3);

    private RemoteStore() {}

    /**
     * Checks that something listens at {@code host:port} within {@link #CONNECT_TIMEOUT}, then opens the store and makes
     * one get of a key nobody writes; returns the open store, or fails saying why.
     */
    public static KvBackend open(String target, String host, int port, Supplier<KvBackend> opener) {
        reachable(target, host, port);
        KvBackend store;
        try {
            store = opener.get();
        } catch (RuntimeException e) {
            throw new BenchFailedException(target + ": " + reason(describe(e), true));
        }
        try {
            preflight(target, store);
        } catch (RuntimeException e) {
            try {
                store.close();
            } catch (Exception ignored) {
                // the failure above is the one to report
            }
            throw e;
        }
        return store;
    }

    /** Fails "unreachable" unless a TCP connection to {@code host:port} opens within {@link #CONNECT_TIMEOUT}. */
    public static void reachable(String target, String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), (int) CONNECT_TIMEOUT.toMillis());
        } catch (UnknownHostException e) {
            throw new BenchFailedException(target + ": unreachable: unknown host " + host);
        } catch (SocketTimeoutException e) {
            throw new BenchFailedException(target + ": unreachable: no answer to a TCP connect within "
                    + CONNECT_TIMEOUT.toSeconds() + " s (a firewall, or no such host?)");
        } catch (IOException e) {
            throw new BenchFailedException(target + ": unreachable: nothing listening at " + host + ":" + port + " ("
                    + describe(e) + "; is `kvlab store master` running at that address?)");
        }
    }

    /** One get of a key no one writes: a store that refuses, or does not answer as a store, fails here. */
    public static void preflight(String target, KvBackend store) {
        MemorySegment buf = store.allocateBuffer(4096);
        GetResult r;
        try {
            r = store.getInto("preflight/" + Long.toHexString(System.nanoTime()), buf);
        } catch (RuntimeException e) {
            throw new BenchFailedException(target + ": " + reason(describe(e), true));
        }
        if (r.status() == GetStatus.ERROR || r.status() == GetStatus.TIMEOUT)
            throw new BenchFailedException(target + ": " + reason(r.detail(), true));
    }

    /**
     * A failure detail with its meaning in front: token refused, unreachable (or, when a TCP connection did open,
     * not a kvlab store), timeout; else the detail.
     */
    public static String reason(String detail, boolean connected) {
        String d = detail == null ? "" : detail;
        String l = d.toLowerCase(Locale.ROOT);
        int nl = d.indexOf('\n');
        if (nl >= 0) d = d.substring(0, nl);
        if (d.length() > 240) d = d.substring(0, 240) + "...";
        if (l.contains("refused the call")
                || l.contains("unauthenticated")
                || l.contains("token")
                || l.contains("auth"))
            return "authentication failed: the store refused the token (set KVLAB_STORE_TOKEN to the store's token): "
                    + d;
        boolean down = l.contains("connection refused")
                || l.contains("unavailable")
                || l.contains("unreachable")
                || l.contains("unknown host")
                || l.contains("unresolved");
        boolean protocol = l.contains("internal")
                || l.contains("http2")
                || l.contains("protocol")
                || l.contains("frame")
                || l.contains("unknown")
                || l.contains("unimplemented")
                || l.contains("closed")
                || l.contains("reset");
        if (connected && (down || protocol))
            return "not a kvlab store: something listens there but does not answer as a kvlab store master (another service on that port?): "
                    + d;
        if (down) return "unreachable: nothing answers there (is `kvlab store master` running at that address?): " + d;
        if (l.contains("deadline") || l.contains("timed out") || l.contains("timeout"))
            return "timeout: the store did not answer in time: " + d;
        return d;
    }

    private static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause())
            if (t.getMessage() != null && !t.getMessage().isBlank()) return t.getMessage();
        return e.getClass().getSimpleName();
    }
}
