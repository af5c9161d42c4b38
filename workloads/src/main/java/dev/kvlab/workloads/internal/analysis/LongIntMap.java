package dev.kvlab.workloads.internal.analysis;

import dev.kvlab.workloads.api.BlockKeys;

/** Open-addressing map from 64-bit keys to dense ids {@code 0, 1, 2, ...} in first-insertion order. */
public final class LongIntMap {

    private long[] keys;
    private int[] values; // id + 1; 0 = empty slot
    private int size;
    private int mask;

    public LongIntMap(int expected) {
        int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        keys = new long[cap];
        values = new int[cap];
        mask = cap - 1;
    }

    /** The id of {@code key}, assigning the next id when it is new. */
    public int idOf(long key) {
        int i = (int) BlockKeys.mix(key) & mask;
        while (true) {
            int v = values[i];
            if (v == 0) {
                keys[i] = key;
                values[i] = ++size;
                if (size * 2 > keys.length) grow();
                return size - 1;
            }
            if (keys[i] == key) return v - 1;
            i = (i + 1) & mask;
        }
    }

    public int size() {
        return size;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        int cap = oldKeys.length * 2;
        keys = new long[cap];
        values = new int[cap];
        mask = cap - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            int v = oldValues[j];
            if (v == 0) continue;
            int i = (int) BlockKeys.mix(oldKeys[j]) & mask;
            while (values[i] != 0) i = (i + 1) & mask;
            keys[i] = oldKeys[j];
            values[i] = v;
        }
    }
}
