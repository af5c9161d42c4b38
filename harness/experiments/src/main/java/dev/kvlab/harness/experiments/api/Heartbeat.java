package dev.kvlab.harness.experiments.api;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A progress line on stderr whenever nothing was said for a while: a daemon thread prints
 * {@code kvlab: <status> (<seconds> s)} when no line was printed for {@code quietNanos} (expanding a huge matrix,
 * a long cell, writing the report), so a run is never silent for long. The status is set by whoever knows what
 * the run is doing; {@link #printed()} tells it a line went out.
 */
public final class Heartbeat implements AutoCloseable {

    private final PrintWriter err;
    private final long quietNanos;
    private final long start = System.nanoTime();
    private final Thread thread;
    private volatile java.util.function.Supplier<String> status = () -> "starting";
    private volatile long lastLine = System.nanoTime();
    private volatile boolean closed;

    /** A heartbeat that speaks after {@code quietSeconds} of silence. */
    public Heartbeat(PrintWriter err, double quietSeconds) {
        this.err = err;
        this.quietNanos = (long) (quietSeconds * 1e9);
        this.thread = Thread.ofPlatform().daemon().name("kvlab-heartbeat").unstarted(this::beat);
        thread.start();
    }

    /** No heartbeat (library callers, tests). */
    public static Heartbeat none() {
        return new Heartbeat();
    }

    private Heartbeat() {
        this.err = null;
        this.quietNanos = Long.MAX_VALUE;
        this.thread = null;
        this.closed = true;
    }

    /** What the run is doing now, as the next heartbeat line will say it. */
    public void status(String s) {
        status = () -> s;
    }

    /** As {@link #status(String)}, made only when a line is printed (for a status that changes often). */
    public void status(java.util.function.Supplier<String> s) {
        status = s;
    }

    /** A progress line was printed (the next heartbeat waits a full quiet period from now). */
    public void printed() {
        lastLine = System.nanoTime();
    }

    private void beat() {
        while (!closed) {
            try {
                TimeUnit.MILLISECONDS.sleep(Math.min(1000, Math.max(50, quietNanos / 4_000_000)));
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            if (closed || now - lastLine < quietNanos) continue;
            synchronized (err) {
                err.println(String.format(Locale.ROOT, "kvlab: %s (%.0f s)", status.get(), (now - start) / 1e9));
                err.flush();
            }
            lastLine = now;
        }
    }

    @Override
    public void close() {
        closed = true;
        if (thread != null) thread.interrupt();
    }
}
