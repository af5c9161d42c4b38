package dev.kvlab.workloads.internal.arrival;

import dev.kvlab.workloads.api.ArrivalProcess;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import java.util.HashSet;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * Open-loop release of a timed source, optionally capped: with {@code maxConcurrency > 0}, a request due while the
 * cap is reached is released at the completion that frees a slot (its intended arrival stays the open-loop time).
 */
public final class OpenLoopProcess implements ArrivalProcess {

    private final RequestSource source;
    private final int cap;
    private final Set<Long> inFlight = new HashSet<>();
    private Request head;
    private long lastCompletion = Long.MIN_VALUE;

    public OpenLoopProcess(RequestSource timed, int maxConcurrency) {
        this.source = timed;
        this.cap = maxConcurrency;
    }

    @Override
    public long nextReleaseNanos() {
        if (head == null) {
            if (!source.hasNext()) return NONE;
            head = source.next();
        }
        if (cap == 0) return head.arrivalNanos();
        if (inFlight.size() >= cap) return NONE;
        return Math.max(head.arrivalNanos(), lastCompletion);
    }

    @Override
    public Release release() {
        long t = nextReleaseNanos();
        if (t == NONE)
            throw new NoSuchElementException(
                    head == null ? "no requests left" : "waiting for a completion (cap " + cap + ")");
        Request r = head;
        head = null;
        inFlight.add(r.id());
        return new Release(r, t);
    }

    @Override
    public void complete(long requestId, long nanos) {
        if (!inFlight.remove(requestId))
            throw new IllegalArgumentException("request " + requestId + " is not in flight");
        lastCompletion = Math.max(lastCompletion, nanos);
    }

    @Override
    public int inFlight() {
        return inFlight.size();
    }

    @Override
    public boolean exhausted() {
        return head == null && !source.hasNext();
    }

    @Override
    public String describe() {
        return source.describe() + (cap > 0 ? " max_concurrency=" + cap : "");
    }

    @Override
    public void close() {
        source.close();
    }
}
