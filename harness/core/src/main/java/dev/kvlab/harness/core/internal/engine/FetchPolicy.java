package dev.kvlab.harness.core.internal.engine;

import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.config.Policy;

/**
 * How many of the blocks the store holds to fetch. {@code recompute}: none; {@code fetch}: all; {@code auto}: the
 * break-even rule per block: fetching the first {@code k} blocks pays off by the compute they save (their tokens'
 * linear and causal-attention FLOPs at their position, by the roofline) minus the expected fetch time (the transport
 * model with the link's current sharers, plus loading the KV into the engine where the hardware has a cost for it). Because later blocks attend to more context, each extra block saves more
 * than the one before, so the best {@code k} is chosen over all prefixes, not block by block greedily.
 */
public final class FetchPolicy {

    private final Policy policy;
    private final Roofline roofline;

    public FetchPolicy(Policy policy, Roofline roofline) {
        this.policy = policy;
        this.roofline = roofline;
    }

    /** Blocks to fetch of the {@code available} the store holds after the first {@code localBlocks}. */
    public int plan(Seq s, int localBlocks, int available, RemoteTier remote) {
        if (available <= 0) return 0;
        return switch (policy) {
            case RECOMPUTE -> 0;
            case FETCH -> available;
            case AUTO -> auto(s, localBlocks, available, remote);
        };
    }

    private int auto(Seq s, int localBlocks, int available, RemoteTier remote) {
        int bt = s.blockTokens;
        double ctx = (double) localBlocks * bt;
        int best = 0;
        double bestGain = 0;
        for (int k = 1; k <= available; k++) {
            double tokens = (double) k * bt;
            double saved = roofline.computeSeconds(tokens, Roofline.causalPairs(tokens, ctx));
            double gain = saved - remote.expectedFetchSeconds(s.instance, k) - roofline.kvLoadSeconds(tokens);
            if (gain > bestGain) {
                bestGain = gain;
                best = k;
            }
        }
        return best;
    }
}
