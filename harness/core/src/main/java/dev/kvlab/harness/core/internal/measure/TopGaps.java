package dev.kvlab.harness.core.internal.measure;

/**
 * One request's token gaps, for TBT = the mean of the longest 10% of them ({@code ceil(0.1 × gaps)}, at least
 * one). The number of gaps is bounded up front ({@code output_tokens - 1}), so only the longest tenth of that
 * bound, {@code k}, needs keeping. Gaps go into a buffer of {@code 2k}; when it fills, a selection moves its
 * {@code k} longest to the front and drops the rest, and from then on a gap no longer than the shortest of those
 * is not kept. That costs O(1) per gap amortized with sequential memory access — a heap's sift per gap was a
 * tenth of the sim's time, because a decode's gaps grow with its context and so nearly every gap entered it.
 * Exact: every gap dropped is no longer than {@code k} gaps kept.
 */
final class TopGaps {

    private final long[] buf;
    private final int k;
    private final int bound;
    private int held;
    private int size;
    private long floor = Long.MIN_VALUE; // after a compaction: k kept gaps are >= floor, every dropped one <= floor

    TopGaps(int outputTokens) {
        this.bound = Math.max(0, outputTokens - 1);
        this.k = bound == 0 ? 0 : Math.max(1, (bound + 9) / 10);
        this.buf = new long[Math.min(bound, 2 * k)];
    }

    /** One more gap; those past the bound are ignored. */
    void add(long gap) {
        if (size >= bound) return;
        size++;
        if (gap <= floor) return;
        if (held == buf.length) compact();
        buf[held++] = gap;
    }

    /** Keeps the k longest held (in any order) and raises the floor to the shortest of them. */
    private void compact() {
        selectLongest(buf, held, k);
        held = k;
        long min = buf[0];
        for (int i = 1; i < k; i++) if (buf[i] < min) min = buf[i];
        floor = min;
    }

    /** Mean of the longest 10% of the gaps, or -1 with none (reorders the gaps held, not which they are). */
    long mean() {
        if (size == 0 || held == 0) return -1;
        int want = Math.min(held, Math.max(1, (size + 9) / 10));
        if (want < held) selectLongest(buf, held, want);
        long sum = 0;
        for (int i = 0; i < want; i++) sum += buf[i];
        return Math.round((double) sum / want);
    }

    /** Rearranges {@code a[0, n)} so that its {@code m} largest values are in {@code a[0, m)} (quickselect, median-of-three). */
    static void selectLongest(long[] a, int n, int m) {
        int lo = 0, hi = n - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            long x = a[lo], y = a[mid], z = a[hi];
            long pivot = x < y ? (y < z ? y : Math.max(x, z)) : (x < z ? x : Math.max(y, z));
            int i = lo, j = hi;
            while (i <= j) { // descending: values > pivot to the left
                while (a[i] > pivot) i++;
                while (a[j] < pivot) j--;
                if (i <= j) {
                    long t = a[i];
                    a[i] = a[j];
                    a[j] = t;
                    i++;
                    j--;
                }
            }
            if (m - 1 <= j) hi = j;
            else if (m - 1 >= i) lo = i;
            else return;
        }
    }
}
