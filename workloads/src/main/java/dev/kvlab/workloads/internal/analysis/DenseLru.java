package dev.kvlab.workloads.internal.analysis;

import java.util.Arrays;

/**
 * An LRU set of dense ids {@code [0, universe)} with a capacity in blocks: a doubly linked list in two int arrays.
 * {@link #touch(int)} moves a present id to most-recently-used, or inserts it there and evicts the
 * least-recently-used id while more than {@code capacity} are held (which may be the id just inserted when the
 * capacity is 0).
 */
public final class DenseLru {

    private static final int ABSENT = -2;
    private static final int NIL = -1;

    private final long capacity;
    private final int[] prev;
    private final int[] next;
    private int head = NIL; // most recently used
    private int tail = NIL; // least recently used
    private long size;

    public DenseLru(long capacity, int universe) {
        if (capacity < 0) throw new IllegalArgumentException("capacity " + capacity);
        this.capacity = capacity;
        this.prev = new int[universe];
        this.next = new int[universe];
        Arrays.fill(prev, ABSENT);
    }

    public boolean contains(int id) {
        return prev[id] != ABSENT;
    }

    public void touch(int id) {
        if (prev[id] != ABSENT) {
            if (head == id) return;
            unlink(id);
            linkHead(id);
            return;
        }
        linkHead(id);
        size++;
        while (size > capacity) {
            int victim = tail;
            unlink(victim);
            prev[victim] = ABSENT;
            size--;
        }
    }

    public long size() {
        return size;
    }

    private void unlink(int id) {
        int p = prev[id], n = next[id];
        if (p == NIL) head = n;
        else next[p] = n;
        if (n == NIL) tail = p;
        else prev[n] = p;
    }

    private void linkHead(int id) {
        prev[id] = NIL;
        next[id] = head;
        if (head != NIL) prev[head] = id;
        head = id;
        if (tail == NIL) tail = id;
    }
}
