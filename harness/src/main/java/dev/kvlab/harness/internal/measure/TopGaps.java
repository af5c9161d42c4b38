package dev.kvlab.harness.internal.measure;

/**
 * The {@code k} largest token gaps of one request (a min-heap of size k), for TBT = the mean of the longest
 * 10% of its gaps. {@code k = ceil(0.1 × gaps)} is known up front from the request's output length.
 */
final class TopGaps {

    private final long[] heap;
    private int size;

    TopGaps(int outputTokens) {
        int gaps = Math.max(0, outputTokens - 1);
        this.heap = new long[Math.max(1, (gaps + 9) / 10)];
    }

    void add(long gap) {
        if (size < heap.length) {
            int i = size++;
            heap[i] = gap;
            while (i > 0) {
                int p = (i - 1) >>> 1;
                if (heap[p] <= heap[i]) break;
                long t = heap[p];
                heap[p] = heap[i];
                heap[i] = t;
                i = p;
            }
        } else if (gap > heap[0]) {
            heap[0] = gap;
            int i = 0;
            while (true) {
                int c = 2 * i + 1;
                if (c >= size) break;
                if (c + 1 < size && heap[c + 1] < heap[c]) c++;
                if (heap[i] <= heap[c]) break;
                long t = heap[c];
                heap[c] = heap[i];
                heap[i] = t;
                i = c;
            }
        }
    }

    /** Mean of the kept gaps, or -1 with none. */
    long mean() {
        if (size == 0) return -1;
        long sum = 0;
        for (int i = 0; i < size; i++) sum += heap[i];
        return Math.round((double) sum / size);
    }
}
