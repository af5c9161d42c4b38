package dev.kvlab.harness.core.internal.live;

import dev.kvlab.workloads.api.ArrivalProcess;

/**
 * A live cell's warm-up pass sent as fast as the target serves it: the same requests in the same order (so the same
 * routing and, per instance, the same prompts kept), each released as soon as fewer than {@code inFlight} are in
 * flight, not at its arrival time. A warm-up measures nothing; what it is for is the state it leaves (the tiers'
 * kept prefixes, the store's blocks), which depends on which requests ran and in what order, not on when. Paced at a
 * low probe's rate, the whole pass of a hot cell took the probe's whole duration again before it measured anything.
 */
public final class UnpacedWarmup implements ArrivalProcess {

    private final ArrivalProcess whole;
    private final int inFlight;
    private final long limit;
    private long released;
    private long lastCompletion;

    /** {@code whole}'s requests with at most {@code inFlight} in flight (the target's instances × sequences: none waits long). */
    public UnpacedWarmup(ArrivalProcess whole, int inFlight) {
        this(whole, inFlight, Long.MAX_VALUE);
    }

    /**
     * The first {@code limit} of them only: a cell whose target keeps nothing between requests (no cache tier) is primed
     * by its engines having served (buffers allocated, pages touched), which one request per sequence does.
     */
    public UnpacedWarmup(ArrivalProcess whole, int inFlight, long limit) {
        if (inFlight < 1) throw new IllegalArgumentException("inFlight must be >= 1, got " + inFlight);
        if (limit < 1) throw new IllegalArgumentException("limit must be >= 1, got " + limit);
        this.whole = whole;
        this.inFlight = inFlight;
        this.limit = limit;
    }

    @Override
    public long nextReleaseNanos() {
        if (released >= limit || whole.nextReleaseNanos() == NONE || whole.inFlight() >= inFlight) return NONE;
        return lastCompletion;
    }

    @Override
    public Release release() {
        if (released >= limit)
            throw new IllegalStateException("the warm-up's " + limit + " requests were all released");
        Release r = whole.release();
        released++;
        return new Release(r.request(), lastCompletion);
    }

    @Override
    public void complete(long requestId, long nanos) {
        lastCompletion = Math.max(lastCompletion, nanos);
        whole.complete(requestId, nanos);
    }

    @Override
    public int inFlight() {
        return whole.inFlight();
    }

    @Override
    public boolean exhausted() {
        return released >= limit || whole.exhausted();
    }

    @Override
    public String describe() {
        return whole.describe() + ", warm-up unpaced (at most " + inFlight + " in flight"
                + (limit < Long.MAX_VALUE ? ", its first " + limit + " requests" : "") + ")";
    }

    @Override
    public void close() {
        whole.close();
    }
}
