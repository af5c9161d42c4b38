package dev.kvlab.workloads.internal.arrival;

import dev.kvlab.workloads.api.ArrivalProcess;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * A closed loop of {@code users} concurrent users. A user is free again {@code think} after its request completes;
 * a free user sends the earliest-releasable pending request (source order breaks ties) whose session has nothing in
 * flight, not before that session's previous completion plus {@code think}. So at most {@code users} requests are in
 * flight, and the rounds of one conversation never overlap. Pending requests are read ahead from the source into a
 * bounded window; the intended arrival of a released request is its release time.
 */
public final class ClosedLoopProcess implements ArrivalProcess {

    private final RequestSource source;
    private final int users;
    private final long thinkNanos;
    private final int window;
    private final List<Request> pending = new ArrayList<>();
    private final PriorityQueue<Long> freeUsers = new PriorityQueue<>();
    private final Map<String, Long> sessionReady = new HashMap<>();
    private final Map<Long, InFlight> inFlight = new HashMap<>();
    private boolean dirty = true;
    private int chosen = -1;
    private long chosenAt = NONE;

    private record InFlight(String session, long releaseNanos) {}

    public ClosedLoopProcess(RequestSource source, int users, long thinkNanos, int window) {
        if (users < 1) throw new IllegalArgumentException("users " + users);
        this.source = source;
        this.users = users;
        this.thinkNanos = thinkNanos;
        this.window = Math.max(window, 1);
        for (int i = 0; i < users; i++) freeUsers.add(0L);
    }

    @Override
    public long nextReleaseNanos() {
        if (!dirty) return chosenAt;
        dirty = false;
        chosen = -1;
        chosenAt = NONE;
        while (pending.size() < window && source.hasNext()) pending.add(source.next());
        if (freeUsers.isEmpty()) return NONE;
        long free = freeUsers.peek();
        for (int i = 0; i < pending.size(); i++) {
            String s = pending.get(i).session();
            Long ready = sessionReady.get(s);
            if (ready != null && ready == NONE) continue; // session in flight
            long t = ready == null ? free : Math.max(free, ready);
            if (t < chosenAt) {
                chosenAt = t;
                chosen = i;
                if (t == free) break; // nothing can be earlier
            }
        }
        return chosenAt;
    }

    @Override
    public Release release() {
        long t = nextReleaseNanos();
        if (t == NONE) throw new NoSuchElementException(exhausted() ? "no requests left" : "waiting for a completion");
        Request r = pending.remove(chosen).withArrivalNanos(t);
        freeUsers.poll();
        sessionReady.put(r.session(), NONE);
        inFlight.put(r.id(), new InFlight(r.session(), t));
        dirty = true;
        return new Release(r, t);
    }

    @Override
    public void complete(long requestId, long nanos) {
        InFlight f = inFlight.remove(requestId);
        if (f == null) throw new IllegalArgumentException("request " + requestId + " is not in flight");
        if (nanos < f.releaseNanos()) {
            throw new IllegalArgumentException("request " + requestId + " completed at " + nanos
                    + " ns, before its release at " + f.releaseNanos());
        }
        long ready = saturatingAdd(nanos, thinkNanos);
        sessionReady.put(f.session(), ready);
        freeUsers.add(ready);
        dirty = true;
        if (sessionReady.size() > 4L * users + window) purge();
    }

    /** Drops ready times that can no longer delay anything: every future release is at or after the bound. */
    private void purge() {
        long bound = freeUsers.isEmpty() ? NONE : freeUsers.peek();
        for (InFlight f : inFlight.values()) bound = Math.min(bound, saturatingAdd(f.releaseNanos(), thinkNanos));
        long b = bound;
        sessionReady.values().removeIf(ready -> ready != NONE && ready <= b);
    }

    private static long saturatingAdd(long a, long b) {
        long s = a + b;
        return ((a ^ s) & (b ^ s)) < 0 ? Long.MAX_VALUE - 1 : s;
    }

    @Override
    public int inFlight() {
        return inFlight.size();
    }

    @Override
    public boolean exhausted() {
        return pending.isEmpty() && !source.hasNext();
    }

    @Override
    public String describe() {
        return source.describe() + "; arrivals closed-loop users=" + users + " think=" + thinkNanos + "ns";
    }

    @Override
    public void close() {
        source.close();
    }
}
