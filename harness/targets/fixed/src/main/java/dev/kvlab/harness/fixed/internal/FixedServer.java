package dev.kvlab.harness.fixed.internal;

import dev.kvlab.harness.spi.EventLoop;
import dev.kvlab.harness.spi.Observed;
import dev.kvlab.harness.spi.Served;
import dev.kvlab.harness.spi.ServedRequest;
import dev.kvlab.harness.spi.Server;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.workloads.api.Request;

/**
 * The fixed target's server: a request that arrives is answered {@code delayNanos} later on the cell's loop, all its
 * {@code tokens} at once (the first token, the others, the end), whatever the workload asked. No queue, no cache: every
 * request is served alone. It measures nothing: it reports the events to the framework's listener.
 */
final class FixedServer implements Server {

    private final EventLoop loop;
    private final long delayNanos;
    private final int tokens;
    private ServingListener listener = ServingListener.NONE;
    private long inFlight;

    FixedServer(EventLoop loop, long delayNanos, int tokens) {
        this.loop = loop;
        this.delayNanos = delayNanos;
        this.tokens = tokens;
    }

    /** One request in service: the fixed answer's tokens; nothing is cached or fetched. */
    private static final class Answer extends ServedRequest {
        private final int tokens;

        Answer(Request r, long intendedNanos, boolean warmup, int tokens) {
            super(r, intendedNanos, warmup);
            this.tokens = tokens;
        }

        @Override
        public int outputTokens() {
            return tokens;
        }

        @Override
        public Observed observed() {
            Request r = request();
            return new Observed(
                    r.id(), r.session(), intendedNanos(), 0, r.inputTokens(), tokens, 0, 0, 0, 0, 0, 0, null);
        }
    }

    @Override
    public Served submit(Request r, long intendedNanos, boolean warmup) {
        Answer s = new Answer(r, intendedNanos, warmup, tokens);
        inFlight++;
        long now = loop.now();
        listener.arrived(s, now);
        loop.at(now + delayNanos, () -> answer(s));
        return s;
    }

    private void answer(Answer s) {
        long now = loop.now();
        listener.firstToken(s, now);
        for (int i = 1; i < tokens; i++) listener.token(s, now);
        inFlight--;
        listener.completed(s, now);
    }

    @Override
    public void listener(ServingListener l) {
        listener = l;
    }

    @Override
    public long inFlight() {
        return inFlight;
    }

    @Override
    public int queued() {
        return 0;
    }

    @Override
    public String state() {
        return "\n  fixed: " + inFlight + " answers pending (" + delayNanos / 1e6 + " ms each)";
    }
}
