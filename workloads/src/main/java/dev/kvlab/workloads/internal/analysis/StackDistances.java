package dev.kvlab.workloads.internal.analysis;

/**
 * LRU stack (reuse) distances of an access sequence: for each access, the number of distinct other ids accessed
 * since the previous access to the same id, or {@link #COLD} for a first access. A Fenwick tree over access times
 * marks the latest access of every id; O(log n) per access.
 */
public final class StackDistances {

    public static final long COLD = -1;

    private final int[] tree; // 1-based Fenwick tree over access positions
    private final int[] last; // latest position + 1 of each id, 0 = never
    private int time;

    public StackDistances(int accesses, int universe) {
        tree = new int[accesses + 1];
        last = new int[universe];
    }

    /** Records an access to {@code id} and returns its stack distance, or {@link #COLD}. */
    public long access(int id) {
        int t = ++time; // 1-based position
        int prevPos = last[id];
        long d = COLD;
        if (prevPos != 0) {
            d = prefix(t - 1) - prefix(prevPos);
            add(prevPos, -1);
        }
        add(t, 1);
        last[id] = t;
        return d;
    }

    private int prefix(int i) {
        int s = 0;
        for (; i > 0; i -= i & -i) s += tree[i];
        return s;
    }

    private void add(int i, int v) {
        for (; i < tree.length; i += i & -i) tree[i] += v;
    }
}
