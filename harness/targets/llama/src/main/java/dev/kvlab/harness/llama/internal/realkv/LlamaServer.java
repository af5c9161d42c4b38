package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.api.config.CacheAwareRouting;
import dev.kvlab.harness.api.config.RouterKind;
import dev.kvlab.harness.spi.LiveClock;
import dev.kvlab.harness.spi.Served;
import dev.kvlab.harness.spi.Server;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.workloads.api.Request;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real-KV instances as a cell's {@link Server}: routes each request to an instance ({@code cluster.router}:
 * round-robin, random, least-loaded by outstanding prompt tokens, or cache-aware: the instance whose last routed
 * prompt shares the longest block prefix when it covers {@code cache_threshold} of the prompt, else the least
 * loaded), and posts what the instance's worker reports to the loop, with the times it happened.
 */
final class LlamaServer implements Server {

    private final LiveClock loop;
    private final List<EngineInstance> instances;
    /** The instances requests are routed to: the first {@code routed} (disaggregated: the prefill instances; else all). */
    private final int routed;

    private final RouterKind router;
    private final CacheAwareRouting cacheAware;
    private final SplittableRandom random;
    private final long[] outstandingTokens;
    private final long[][] lastPrompt;
    private final AtomicInteger working = new AtomicInteger();
    private ServingListener listener = ServingListener.NONE;
    private long inFlight, next;

    LlamaServer(
            LiveClock loop,
            List<EngineInstance> instances,
            RouterKind router,
            CacheAwareRouting cacheAware,
            long seed) {
        this(loop, instances, instances.size(), router, cacheAware, seed);
    }

    /** Requests go to the first {@code routed} instances (PD: the prefill instances, which hand them to the others). */
    LlamaServer(
            LiveClock loop,
            List<EngineInstance> instances,
            int routed,
            RouterKind router,
            CacheAwareRouting cacheAware,
            long seed) {
        this.loop = loop;
        this.routed = routed;
        this.instances = List.copyOf(instances);
        this.router = router;
        this.cacheAware = cacheAware;
        this.random = new SplittableRandom(seed);
        this.outstandingTokens = new long[routed];
        this.lastPrompt = new long[routed][0];
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

    /** The router's state between phases (round-robin position, each instance's last prompt), to put back with {@link #routerState(Object)}. */
    Object routerState() {
        long[][] last = new long[lastPrompt.length][];
        for (int i = 0; i < last.length; i++) last[i] = lastPrompt[i].clone();
        return new RouterState(next, last);
    }

    /** Puts back a state {@link #routerState()} took (no request in flight). */
    void routerState(Object state) {
        RouterState st = (RouterState) state;
        next = st.next();
        for (int i = 0; i < lastPrompt.length; i++) lastPrompt[i] = st.lastPrompt()[i].clone();
    }

    private record RouterState(long next, long[][] lastPrompt) {}

    /** True when no instance has work left, write-backs included. */
    boolean idle() {
        return working.get() == 0;
    }

    @Override
    public String state() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < outstandingTokens.length; i++)
            sb.append("\n  instance ")
                    .append(i)
                    .append(": ")
                    .append(outstandingTokens[i])
                    .append(" prompt tokens outstanding");
        return sb.toString();
    }

    private int route(Request r) {
        int n = routed;
        if (n == 1) return 0;
        return switch (router) {
            case ROUND_ROBIN -> (int) (next++ % n);
            case RANDOM -> random.nextInt(n);
            case LEAST_LOADED -> leastLoaded();
            case CACHE_AWARE -> {
                int best = -1, bestLen = 0;
                for (int i = 0; i < n; i++) {
                    int len = common(lastPrompt[i], r.blockKeys());
                    if (len > bestLen) {
                        best = i;
                        bestLen = len;
                    }
                }
                yield best >= 0 && (double) bestLen * r.blockTokens() / r.inputTokens() >= cacheAware.cacheThreshold()
                        ? best
                        : leastLoaded();
            }
            case KV_CENTRIC ->
                throw new IllegalStateException("kv-centric routing is refused by the llama.cpp target's validation");
        };
    }

    private int leastLoaded() {
        int best = 0;
        for (int i = 1; i < outstandingTokens.length; i++) if (outstandingTokens[i] < outstandingTokens[best]) best = i;
        return best;
    }

    private static int common(long[] a, long[] b) {
        int n = Math.min(a.length, b.length), i = 0;
        while (i < n && a[i] == b[i]) i++;
        return i;
    }

    @Override
    public Served submit(Request r, long intendedNanos, boolean warmup) {
        int i = route(r);
        LlamaRequest s = new LlamaRequest(r, intendedNanos, warmup, i);
        inFlight++;
        outstandingTokens[i] += r.inputTokens();
        lastPrompt[i] = java.util.Arrays.copyOf(r.blockKeys(), r.fullBlocks());
        working.incrementAndGet();
        listener.arrived(s, loop.now());
        instances.get(i).submit(r, events(s));
        return s;
    }

    /** What the engine thread reports of {@code s}, posted to the loop; each instance's part of its work counts in {@link #idle}. */
    private EngineInstance.Events events(LlamaRequest s) {
        return new EngineInstance.Events() {
            @Override
            public void admitted(long t) {
                loop.post(() -> listener.admitted(s, t));
            }

            @Override
            public void handedOver(dev.kvlab.harness.spi.Handover h, long t) {
                loop.post(() -> {
                    if (!s.prefillReleased)
                        outstandingTokens[s.instance] -=
                                s.request().inputTokens(); // its prefill instance is done with it
                    s.prefillReleased = true;
                    listener.handedOver(s, h, t);
                });
            }

            @Override
            public EngineInstance.Events decodeSide() {
                working.incrementAndGet();
                return events(s);
            }

            @Override
            public void prefix(EngineInstance.Prefix p, long t) {
                loop.post(() -> {
                    s.prefix = p;
                    if (p.fetchNanos() > 0) listener.fetched(s, p.fetchNanos(), t);
                });
            }

            @Override
            public void firstToken(long t) {
                loop.post(() -> listener.firstToken(s, t));
            }

            @Override
            public void token(long t) {
                loop.post(() -> listener.token(s, t));
            }

            @Override
            public void completed(long t) {
                loop.post(() -> end(s, null, t));
            }

            @Override
            public void failed(String why, long t) {
                loop.post(() -> end(s, why, t));
            }

            @Override
            public void idle() {
                working.decrementAndGet();
            }
        };
    }

    private void end(LlamaRequest s, String failure, long t) {
        if (s.done) return;
        s.done = true;
        inFlight--;
        if (!s.prefillReleased) outstandingTokens[s.instance] -= s.request().inputTokens();
        s.prefillReleased = true;
        if (failure == null) {
            listener.completed(s, t);
        } else {
            s.failure = failure;
            listener.failed(s, t);
        }
    }
}
