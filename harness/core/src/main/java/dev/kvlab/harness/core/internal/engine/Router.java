package dev.kvlab.harness.core.internal.engine;

import dev.kvlab.harness.api.config.CacheAwareRouting;
import dev.kvlab.harness.api.config.RouterKind;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Picks the instance a request goes to. Deterministic: ties go to the lowest index; {@code random} draws from a
 * generator seeded by the run's seed. Every router reads only the serving model's own state (instances' queues and
 * prefix caches, the {@link PoolIndex}), which both clocks keep the same way, so sim and live route alike.
 */
public final class Router {

    private static final long RANDOM_STREAM = 0x9E3779B97F4A7C15L;

    private final RouterKind kind;
    private final boolean localTier;
    private final SplittableRandom random;
    private final KvCentricEstimate kvCentric;
    private final CacheAwareRouting cacheAware;
    private int next;

    Router(RouterKind kind, CacheAwareRouting cacheAware, boolean localTier, long seed, KvCentricEstimate kvCentric) {
        this.kind = kind;
        this.cacheAware = cacheAware;
        this.localTier = localTier;
        this.random = new SplittableRandom(seed ^ RANDOM_STREAM);
        this.kvCentric = kvCentric;
    }

    public Instance route(Seq s, List<Instance> candidates) {
        return switch (kind) {
            case ROUND_ROBIN -> candidates.get(Math.floorMod(next++, candidates.size()));
            case RANDOM -> candidates.get(random.nextInt(candidates.size()));
            case LEAST_LOADED -> leastLoaded(candidates);
            case CACHE_AWARE -> localTier ? cacheAware(s, candidates) : leastLoaded(candidates);
            case KV_CENTRIC -> leastEstimatedTtft(s, candidates);
        };
    }

    private static Instance leastLoaded(List<Instance> c) {
        Instance best = c.get(0);
        for (int i = 1; i < c.size(); i++) if (c.get(i).outstandingTokens < best.outstandingTokens) best = c.get(i);
        return best;
    }

    /**
     * SGLang's {@code cache_aware} policy on the instances' own caches: balancing first (loads in requests queued or
     * running), then the longest local prefix when it covers more than the threshold of the prompt, else the least
     * loaded. (SGLang's "smallest tree" stands for the instance with the most room; an instance's real cache, full
     * under load, says that less well than its outstanding work does.)
     */
    private Instance cacheAware(Seq s, List<Instance> c) {
        int max = Integer.MIN_VALUE, min = Integer.MAX_VALUE;
        Instance idlest = null;
        for (Instance in : c) {
            int l = in.load();
            if (l > max) max = l;
            if (l < min) {
                min = l;
                idlest = in;
            }
        }
        if (cacheAware.imbalanced(max, min)) return idlest;
        Instance best = null;
        int bestHits = -1;
        long[] keys = s.request.blockKeys();
        for (Instance in : c) {
            int h = in.cache.prefixHits(keys, s.maxHitBlocks);
            if (h > bestHits || (h == bestHits && in.outstandingTokens < best.outstandingTokens)) {
                best = in;
                bestHits = h;
            }
        }
        double matched = Math.min(1.0, (double) bestHits * s.blockTokens / Math.max(1, s.inputTokens()));
        return matched > cacheAware.cacheThreshold() ? best : leastLoaded(c);
    }

    /** Algorithm 1 of the Mooncake paper: the instance with the least estimated TTFT; its queue grows by the prefill estimate. */
    private Instance leastEstimatedTtft(Seq s, List<Instance> c) {
        int global = kvCentric.globalBlocks(s);
        Instance best = null;
        KvCentricEstimate.Estimate bestEst = null;
        for (Instance in : c) {
            KvCentricEstimate.Estimate e = kvCentric.estimate(s, in, global);
            if (bestEst == null || e.ttftNanos() < bestEst.ttftNanos()) {
                best = in;
                bestEst = e;
            }
        }
        s.queuedPrefillNanos = bestEst.prefillNanos();
        best.queuedPrefillNanos += bestEst.prefillNanos();
        return best;
    }

    /** A prefill chunk of {@code chunk} of the {@code remaining} prompt tokens is done: that share of the estimate leaves the queue. */
    static void prefillProgress(Seq s, Instance in, int chunk, int remaining) {
        if (s.queuedPrefillNanos == 0 || remaining <= 0) return;
        long done = chunk >= remaining
                ? s.queuedPrefillNanos
                : Math.round((double) s.queuedPrefillNanos * chunk / remaining);
        s.queuedPrefillNanos -= done;
        in.queuedPrefillNanos -= done;
    }

    /** {@code s}'s prefill is done (or it failed): its estimate leaves its instance's queue. */
    static void prefillSettled(Seq s, Instance in) {
        if (s.queuedPrefillNanos == 0 || in == null) return;
        in.queuedPrefillNanos -= s.queuedPrefillNanos;
        s.queuedPrefillNanos = 0;
    }
}
