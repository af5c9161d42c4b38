package dev.kvlab.harness.core.internal.engine;

import java.util.Arrays;

/**
 * An open-addressing hash map from {@code long} keys to objects (linear probing, backward-shift deletion): no
 * boxing on the prefix cache's hot path. Not iterable (so nothing can depend on its layout).
 */
final class LongMap<V> {

    private long[] keys;
    private Object[] values;
    private int size;
    private int mask;

    LongMap(int expected) {
        int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        keys = new long[cap];
        values = new Object[cap];
        mask = cap - 1;
    }

    int size() {
        return size;
    }

    private static int hash(long k) {
        long h = k * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    @SuppressWarnings("unchecked")
    V get(long k) {
        int i = hash(k) & mask;
        while (true) {
            Object v = values[i];
            if (v == null) return null;
            if (keys[i] == k) return (V) v;
            i = (i + 1) & mask;
        }
    }

    boolean containsKey(long k) {
        return get(k) != null;
    }

    void put(long k, V v) {
        if (v == null) throw new IllegalArgumentException("null value");
        if ((size + 1) * 2 > keys.length) grow();
        int i = hash(k) & mask;
        while (values[i] != null) {
            if (keys[i] == k) {
                values[i] = v;
                return;
            }
            i = (i + 1) & mask;
        }
        keys[i] = k;
        values[i] = v;
        size++;
    }

    void remove(long k) {
        int i = hash(k) & mask;
        while (true) {
            if (values[i] == null) return;
            if (keys[i] == k) break;
            i = (i + 1) & mask;
        }
        size--;
        // backward-shift deletion keeps every probe chain unbroken
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if (values[j] == null) break;
            int home = hash(keys[j]) & mask;
            if (((j - home) & mask) >= ((j - i) & mask)) {
                keys[i] = keys[j];
                values[i] = values[j];
                i = j;
            }
        }
        values[i] = null;
    }

    private void grow() {
        long[] ok = keys;
        Object[] ov = values;
        keys = new long[ok.length * 2];
        values = new Object[ov.length * 2];
        mask = keys.length - 1;
        size = 0;
        for (int i = 0; i < ok.length; i++) if (ov[i] != null) put(ok[i], ov[i] == null ? null : castV(ov[i]));
        Arrays.fill(ov, null);
    }

    @SuppressWarnings("unchecked")
    private V castV(Object o) {
        return (V) o;
    }
}
