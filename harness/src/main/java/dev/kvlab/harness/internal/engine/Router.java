package dev.kvlab.harness.internal.engine;

import dev.kvlab.harness.api.config.RouterKind;
import java.util.List;

/** Picks the instance a request goes to. Deterministic: ties go to the lowest index. */
public final class Router {

    private final RouterKind kind;
    private final boolean localTier;
    private int next;

    public Router(RouterKind kind, boolean localTier) {
        this.kind = kind;
        this.localTier = localTier;
    }

    public Instance route(Seq s, List<Instance> candidates) {
        return switch (kind) {
            case ROUND_ROBIN -> candidates.get(Math.floorMod(next++, candidates.size()));
            case LEAST_LOADED -> leastLoaded(candidates);
            case CACHE_AWARE -> localTier ? longestPrefix(s, candidates) : leastLoaded(candidates);
        };
    }

    private static Instance leastLoaded(List<Instance> c) {
        Instance best = c.get(0);
        for (int i = 1; i < c.size(); i++) if (c.get(i).outstandingTokens < best.outstandingTokens) best = c.get(i);
        return best;
    }

    private static Instance longestPrefix(Seq s, List<Instance> c) {
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
        return best;
    }
}
