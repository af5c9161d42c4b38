package dev.kvlab.harness.report;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A bounded, deterministic uniform sample of a stream of tuples (Vitter's algorithm R, fixed seed): every tuple
 * while at most {@code capacity} came, in arrival order; beyond that a uniform sample of {@code capacity}. Lets
 * the report read a million-request {@code requests.csv} in bounded memory; below the bound it is exact.
 */
final class Reservoir {

    private final int width;
    private final int capacity;
    private final double[] data;
    private final SplittableRandom random = new SplittableRandom(0x5EED5EEDL);
    private long seen;

    Reservoir(int width, int capacity) {
        this.width = width;
        this.capacity = capacity;
        this.data = new double[Math.multiplyExact(width, capacity)];
    }

    void add(double... tuple) {
        long n = seen++;
        int slot;
        if (n < capacity) slot = (int) n;
        else {
            long j = random.nextLong(n + 1);
            if (j >= capacity) return;
            slot = (int) j;
        }
        System.arraycopy(tuple, 0, data, slot * width, width);
    }

    /** Tuples offered so far. */
    long seen() {
        return seen;
    }

    /** Tuples held (at most the capacity). */
    int size() {
        return (int) Math.min(seen, capacity);
    }

    double get(int i, int field) {
        return data[i * width + field];
    }

    /** Field {@code field} of every tuple held, sorted. */
    double[] sorted(int field) {
        double[] v = new double[size()];
        for (int i = 0; i < v.length; i++) v[i] = get(i, field);
        Arrays.sort(v);
        return v;
    }
}
