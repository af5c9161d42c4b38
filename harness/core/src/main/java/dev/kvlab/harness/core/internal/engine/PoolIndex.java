package dev.kvlab.harness.core.internal.engine;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the router believes the shared store holds: the block keys the serving model has written back (every full
 * prompt block once its prefill is done), at most the store's capacity in blocks, least recently written or used
 * forgotten first. It is the scheduler's own view, kept from the model's events, so sim and live routers see the same
 * state; it may be stale (a write-back dropped, an object evicted early): a wrong guess costs a slower request, never
 * a wrong hit, because the fetch itself looks the blocks up and verifies them.
 */
final class PoolIndex {

    private final long capacity;
    private final LinkedHashMap<Long, Boolean> keys;

    PoolIndex(long capacityBlocks) {
        this.capacity = Math.max(0, capacityBlocks);
        this.keys = new LinkedHashMap<>(1 << 12, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                return size() > PoolIndex.this.capacity;
            }
        };
    }

    /** Contiguous leading blocks of {@code keys[0, max)} believed to be in the store (changes nothing). */
    int prefix(long[] k, int max) {
        int n = 0;
        while (n < max && keys.containsKey(k[n])) n++;
        return n;
    }

    /** Records {@code k[0, n)} as stored (most recently used). */
    void stored(long[] k, int n) {
        if (capacity == 0) return;
        for (int i = 0; i < n; i++) keys.put(k[i], Boolean.TRUE);
    }
}
