package dev.kvlab.workloads.internal.analysis;

import java.util.Arrays;

/** A growable {@code int} array. */
public final class IntList {

    private int[] a;
    private int size;

    public IntList(int initial) {
        a = new int[Math.max(8, initial)];
    }

    public void add(int v) {
        if (size == a.length) {
            if (a.length == Integer.MAX_VALUE - 8) throw new IllegalStateException("more than " + size + " entries");
            a = Arrays.copyOf(a, (int) Math.min(Integer.MAX_VALUE - 8, a.length * 2L));
        }
        a[size++] = v;
    }

    public int get(int i) {
        return a[i];
    }

    public int size() {
        return size;
    }

    /** The backing array (length may exceed {@link #size()}). */
    public int[] raw() {
        return a;
    }

    public int[] toArray() {
        return Arrays.copyOf(a, size);
    }
}
