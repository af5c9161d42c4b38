package dev.kvlab.harness.internal.measure;

import java.util.Arrays;

/**
 * One request's token gaps, for TBT = the mean of the longest 10% of them ({@code ceil(0.1 × gaps)}, at least
 * one). The number of gaps is known up front ({@code output_tokens - 1}), so they go into one array and the
 * longest are picked once, at the end.
 */
final class TopGaps {

    private final long[] gaps;
    private int size;

    TopGaps(int outputTokens) {
        this.gaps = new long[Math.max(0, outputTokens - 1)];
    }

    void add(long gap) {
        if (size < gaps.length) gaps[size++] = gap;
    }

    /** Mean of the longest 10% of the gaps, or -1 with none. */
    long mean() {
        if (size == 0) return -1;
        int k = Math.max(1, (size + 9) / 10);
        if (size <= 32) {
            Arrays.sort(gaps, 0, size);
        } else {
            select(gaps, size - k, size); // the k longest end up in [size - k, size), in some order
        }
        long sum = 0;
        for (int i = size - k; i < size; i++) sum += gaps[i];
        return Math.round((double) sum / k);
    }

    /** Quickselect: afterwards a[n] holds the n-th smallest of a[0, size), smaller ones before it, larger after. */
    static void select(long[] a, int n, int size) {
        int lo = 0, hi = size - 1;
        while (hi > lo) {
            int mid = (lo + hi) >>> 1;
            // median of three as pivot
            if (a[mid] < a[lo]) swap(a, mid, lo);
            if (a[hi] < a[lo]) swap(a, hi, lo);
            if (a[hi] < a[mid]) swap(a, hi, mid);
            long pivot = a[mid];
            int i = lo, j = hi;
            while (i <= j) {
                while (a[i] < pivot) i++;
                while (a[j] > pivot) j--;
                if (i <= j) swap(a, i++, j--);
            }
            if (n <= j) hi = j;
            else if (n >= i) lo = i;
            else return;
        }
    }

    private static void swap(long[] a, int i, int j) {
        long t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
