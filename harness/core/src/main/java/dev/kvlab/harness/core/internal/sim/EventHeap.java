package dev.kvlab.harness.core.internal.sim;

import java.util.Arrays;

/**
 * A binary min-heap of (time, sequence, action): earliest time first, ties in insertion order, so that the
 * order of events is a pure function of the schedule. Primitive arrays, no per-event boxing.
 */
public final class EventHeap {

    private long[] times = new long[1024];
    private long[] seqs = new long[1024];
    private Runnable[] actions = new Runnable[1024];
    private int size;
    private long nextSeq;

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public void add(long time, Runnable action) {
        if (size == times.length) {
            int n = size * 2;
            times = Arrays.copyOf(times, n);
            seqs = Arrays.copyOf(seqs, n);
            actions = Arrays.copyOf(actions, n);
        }
        int i = size++;
        long seq = nextSeq++;
        while (i > 0) {
            int p = (i - 1) >>> 1;
            if (!less(time, seq, times[p], seqs[p])) break;
            times[i] = times[p];
            seqs[i] = seqs[p];
            actions[i] = actions[p];
            i = p;
        }
        times[i] = time;
        seqs[i] = seq;
        actions[i] = action;
    }

    /** Time of the earliest event; undefined when empty. */
    public long peekTime() {
        return times[0];
    }

    /** Removes the earliest event and returns its action (its time was {@link #peekTime()}). */
    public Runnable poll() {
        Runnable top = actions[0];
        int last = --size;
        long t = times[last], s = seqs[last];
        Runnable a = actions[last];
        actions[last] = null;
        int i = 0;
        int half = last >>> 1;
        while (i < half) {
            int c = 2 * i + 1;
            int r = c + 1;
            if (r < last && less(times[r], seqs[r], times[c], seqs[c])) c = r;
            if (!less(times[c], seqs[c], t, s)) break;
            times[i] = times[c];
            seqs[i] = seqs[c];
            actions[i] = actions[c];
            i = c;
        }
        if (last > 0) {
            times[i] = t;
            seqs[i] = s;
            actions[i] = a;
        }
        return top;
    }

    private static boolean less(long t1, long s1, long t2, long s2) {
        return t1 < t2 || (t1 == t2 && s1 < s2);
    }
}
