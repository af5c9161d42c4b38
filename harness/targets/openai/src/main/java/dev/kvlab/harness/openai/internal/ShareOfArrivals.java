package dev.kvlab.harness.openai.internal;

import dev.kvlab.harness.api.Shard;
import dev.kvlab.workloads.api.ArrivalProcess;

/**
 * The requests of an open-loop, uncapped {@link ArrivalProcess} that {@code shard} sends (position {@code i} in the
 * workload with {@code i mod N = K - 1}), each at the time the whole process releases it: the others are taken from
 * it and completed at once, unsent (an open loop's times do not depend on completions, so the times of the share are
 * exactly the whole stream's). {@link dev.kvlab.harness.api.run.RequestSplit#checkArrival} refuses the processes for
 * which that would not hold.
 */
final class ShareOfArrivals implements ArrivalProcess {

    private final ArrivalProcess whole;
    private final Shard shard;
    private Release next;

    ShareOfArrivals(ArrivalProcess whole, Shard shard) {
        this.whole = whole;
        this.shard = shard;
    }

    /** Passes over the requests of other shards up to the next one of this shard (null: none is left). */
    private Release peek() {
        while (next == null) {
            long t = whole.nextReleaseNanos();
            if (t == NONE) return null;
            Release r = whole.release();
            if (shard.holds(Math.toIntExact(r.request().id() % shard.count()))) next = r;
            else whole.complete(r.request().id(), t);
        }
        return next;
    }

    @Override
    public long nextReleaseNanos() {
        Release r = peek();
        return r == null ? NONE : r.releaseNanos();
    }

    @Override
    public Release release() {
        Release r = peek();
        if (r == null) throw new IllegalStateException("no request of shard " + shard.label() + " is left");
        next = null;
        return r;
    }

    @Override
    public void complete(long requestId, long nanos) {
        whole.complete(requestId, nanos);
    }

    @Override
    public int inFlight() {
        return whole.inFlight();
    }

    @Override
    public boolean exhausted() {
        return peek() == null;
    }

    @Override
    public String describe() {
        return whole.describe() + ", requests of shard " + shard.label() + " (every " + shard.count() + "-th)";
    }

    @Override
    public void close() {
        whole.close();
    }
}
