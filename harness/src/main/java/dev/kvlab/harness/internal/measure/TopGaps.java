package dev.kvlab.harness.internal.measure;

import java.util.Arrays;

/**
 * One request's token gaps, for TBT = the mean of the longest 10% of them ({@code ceil(0.1 × gaps)}, at least
 * one). The number of gaps is bounded up front ({@code output_tokens - 1}), so only the longest tenth of that
 * bound is kept, in a min-heap: a request holds a tenth of its gaps, and the usual gap (not among the longest)
 * costs one comparison.
 */
final class TopGaps {

    private final long[] heap; // min-heap of the longest gaps seen, at most heap.length
    private final int bound;
    private int held;
    private int size;

    TopGaps(int outputTokens) {
        this.bound = Math.max(0, outputTokens - 1);
        this.heap = new long[bound == 0 ? 0 : Math.max(1, (bound + 9) / 10)];
    }

    /** One more gap; those past the bound are ignored. */
    void add(long gap) {
        if (size >= bound) return;
        size++;
        if (held < heap.length) {
            int i = held++;
            while (i > 0) {
                int p = (i - 1) >>> 1;
                if (heap[p] <= gap) break;
                heap[i] = heap[p];
                i = p;
            }
            heap[i] = gap;
        } else if (heap.length > 0 && gap > heap[0]) {
            siftDown(gap);
        }
    }

    private void siftDown(long gap) {
        int n = held, i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= n) break;
            if (c + 1 < n && heap[c + 1] < heap[c]) c++;
            if (heap[c] >= gap) break;
            heap[i] = heap[c];
            i = c;
        }
        heap[i] = gap;
    }

    /** Mean of the longest 10% of the gaps, or -1 with none. */
    long mean() {
        if (size == 0 || held == 0) return -1;
        int k = Math.min(held, Math.max(1, (size + 9) / 10));
        long sum = 0;
        if (k == held) {
            for (int i = 0; i < held; i++) sum += heap[i];
        } else { // fewer gaps came than the bound: the k longest of those held
            long[] s = Arrays.copyOf(heap, held);
            Arrays.sort(s);
            for (int i = held - k; i < held; i++) sum += s[i];
        }
        return Math.round((double) sum / k);
    }
}
