package dev.kvlab.harness.core.internal.engine;

import dev.kvlab.harness.api.catalog.Roofline;

/**
 * The TTFT estimate of the Mooncake paper's KVCache-centric scheduling (FAST'25, Algorithm 1), per prefill instance:
 *
 * <pre>
 *   local    = leading blocks the instance's own prefix cache holds (HBM, then DRAM; 0 without a local tier)
 *   global   = leading blocks the shared store holds, as the {@link PoolIndex} believes (0 without a remote tier)
 *   transfer = max(0, global - local) blocks, fetched instead of computed (0 under policy recompute)
 *   T_queue    = the estimated prefill seconds still ahead on the instance: every request routed there whose prefill is
 *                not done, each counted by the share of its prompt not yet computed
 *   T_prefill  = roofline compute seconds of the prompt tokens not covered by local + transfer, after that context
 *   T_transfer = the remote tier's expected fetch seconds for the transfer blocks on the instance's link (contention
 *                included), as the auto fetch policy uses
 *   TTFT     = T_queue + T_prefill + T_transfer
 * </pre>
 *
 * The paper fits T_prefill by regression on offline runs; kvlab uses its own roofline, the model the GPU time comes
 * from. Decode work on a colocated instance is not in T_queue (the paper's prefill instances do not decode).
 */
final class KvCentricEstimate {

    /** One instance's estimate, in nanoseconds. */
    record Estimate(long queueNanos, long prefillNanos, long transferNanos) {
        long ttftNanos() {
            return queueNanos + prefillNanos + transferNanos;
        }
    }

    private final Roofline roofline;
    private final RemoteTier remote;
    private final PoolIndex pool;
    private final boolean localTier, remoteTier, transfers;

    KvCentricEstimate(
            Roofline roofline,
            RemoteTier remote,
            PoolIndex pool,
            boolean localTier,
            boolean remoteTier,
            boolean transfers) {
        this.roofline = roofline;
        this.remote = remote;
        this.pool = pool;
        this.localTier = localTier;
        this.remoteTier = remoteTier;
        this.transfers = transfers;
    }

    /** Leading blocks of {@code s} the pool is believed to hold (compute once per request). */
    int globalBlocks(Seq s) {
        return remoteTier ? pool.prefix(s.request.blockKeys(), s.maxHitBlocks) : 0;
    }

    Estimate estimate(Seq s, Instance in, int globalBlocks) {
        int local = localTier ? in.cache.prefixHits(s.request.blockKeys(), s.maxHitBlocks) : 0;
        int transfer = transfers ? Math.max(0, globalBlocks - local) : 0;
        long cachedTokens = (long) (local + transfer) * s.blockTokens;
        long computed = Math.max(1, s.inputTokens() - cachedTokens);
        double prefill = roofline.computeSeconds(computed, Roofline.causalPairs(computed, cachedTokens));
        double fetch = transfer > 0
                ? remote.expectedFetchSeconds(in, transfer) + roofline.kvLoadSeconds((double) transfer * s.blockTokens)
                : 0;
        return new Estimate(in.queuedPrefillNanos, Math.round(prefill * 1e9), Math.round(fetch * 1e9));
    }
}
