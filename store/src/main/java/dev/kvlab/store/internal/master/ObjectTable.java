package dev.kvlab.store.internal.master;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * One shard's objects by key: open addressing with linear probing over two parallel arrays, the keys' hashes and
 * the objects (each holds its key). A lookup reads the hash array, then the one object it matches, which it compares
 * by identity first: one memory access fewer than a {@code HashMap}'s table, node and value, and growing rehashes the
 * hash array only. Removal shifts the probe run back (no tombstones). Iteration order is the slots' order, which no
 * decision of the master depends on. Not thread-safe (its shard's lock).
 */
final class ObjectTable {

    private static final int MIN_SLOTS = 16;

    /** Spread key hash per slot, 0 for an empty slot (a stored hash always has its lowest bit set). */
    private int[] hashes = new int[MIN_SLOTS];

    private ObjectMeta[] objects = new ObjectMeta[MIN_SLOTS];
    private int shift = Integer.SIZE - Integer.numberOfTrailingZeros(MIN_SLOTS);
    private int size;

    /** The hash kept for {@code key}: its home slot is the top bits (Fibonacci hashing), never 0. */
    private static int spread(String key) {
        return (key.hashCode() * 0x9E3779B9) | 1;
    }

    private int home(int h) {
        return h >>> shift;
    }

    private int slotOf(String key, int h) {
        int mask = hashes.length - 1;
        for (int i = home(h); ; i = (i + 1) & mask) {
            int x = hashes[i];
            if (x == 0) return -1 - i;
            if (x == h) {
                String k = objects[i].key;
                if (k == key || k.equals(key)) return i;
            }
        }
    }

    ObjectMeta get(String key) {
        int i = slotOf(key, spread(key));
        return i >= 0 ? objects[i] : null;
    }

    /** Maps {@code key} (which is {@code o.key}) to {@code o}, replacing what it mapped to. */
    void put(String key, ObjectMeta o) {
        int h = spread(key);
        int i = slotOf(key, h);
        if (i >= 0) {
            objects[i] = o;
            return;
        }
        if (2 * (size + 1) > hashes.length) {
            grow();
            i = slotOf(key, h);
        }
        i = -1 - i;
        hashes[i] = h;
        objects[i] = o;
        size++;
    }

    /** Removes {@code key}; what it mapped to, or null. */
    ObjectMeta remove(String key) {
        int i = slotOf(key, spread(key));
        if (i < 0) return null;
        ObjectMeta o = objects[i];
        clear(i);
        return o;
    }

    /** Removes {@code key} if it maps to {@code o}. */
    boolean remove(String key, ObjectMeta o) {
        int i = slotOf(key, spread(key));
        if (i < 0 || objects[i] != o) return false;
        clear(i);
        return true;
    }

    /** Removes every object {@code test} accepts (asked once per object) and returns them. */
    List<ObjectMeta> removeIf(Predicate<ObjectMeta> test) {
        List<ObjectMeta> gone = new ArrayList<>();
        for (ObjectMeta o : objects) if (o != null && test.test(o)) gone.add(o);
        for (ObjectMeta o : gone) remove(o.key, o);
        return gone;
    }

    int size() {
        return size;
    }

    /** Slots to look at with {@link #slot}. */
    int slots() {
        return objects.length;
    }

    /** The object in slot {@code i}, or null. */
    ObjectMeta slot(int i) {
        return objects[i];
    }

    /** Empties slot {@code i} and moves later members of its probe run back into the gap. */
    private void clear(int i) {
        int mask = hashes.length - 1;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            int h = hashes[j];
            if (h == 0) break;
            int k = home(h);
            // the member at j may move to i unless its home lies cyclically in (i, j]
            boolean stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
            if (stays) continue;
            hashes[i] = h;
            objects[i] = objects[j];
            i = j;
        }
        hashes[i] = 0;
        objects[i] = null;
        size--;
    }

    private void grow() {
        int[] oldHashes = hashes;
        ObjectMeta[] oldObjects = objects;
        int n = oldHashes.length * 2;
        hashes = new int[n];
        objects = new ObjectMeta[n];
        shift--;
        int mask = n - 1;
        for (int j = 0; j < oldHashes.length; j++) {
            int h = oldHashes[j];
            if (h == 0) continue;
            int i = home(h);
            while (hashes[i] != 0) i = (i + 1) & mask;
            hashes[i] = h;
            objects[i] = oldObjects[j];
        }
    }
}
