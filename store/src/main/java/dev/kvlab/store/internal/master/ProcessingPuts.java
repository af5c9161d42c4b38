package dev.kvlab.store.internal.master;

import java.util.Arrays;

/**
 * The PROCESSING objects in put-id order, the order {@link StoreMaster}'s reclaim walks them. An array queue that
 * removes lazily: a removed object is only marked ({@link ObjectMeta#processing}) and leaves the array once it
 * reaches the head, or when the array is full and is compacted. Puts mostly end in the order they started, so the
 * head follows them and the array stays about as long as the puts in flight. Not thread-safe (the space lock).
 */
final class ProcessingPuts {

    private ObjectMeta[] queue = new ObjectMeta[64];
    private int head, tail, live;

    /** Appends {@code o}, whose put id is larger than every one added before. */
    void add(ObjectMeta o) {
        if (tail == queue.length) {
            compact();
            if (tail > queue.length / 2) queue = Arrays.copyOf(queue, 2 * queue.length);
        }
        o.processing = true;
        queue[tail++] = o;
        live++;
    }

    /** Removes {@code o}; nothing when it is not here. */
    void remove(ObjectMeta o) {
        if (!o.processing) return;
        o.processing = false;
        live--;
        while (head < tail && !queue[head].processing) queue[head++] = null;
        if (head == tail) head = tail = 0;
    }

    /** The object present here whose put id is {@code putId}, or null (a binary search: ids grow along the queue). */
    ObjectMeta find(long putId) {
        int lo = head, hi = tail - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            ObjectMeta o = queue[mid];
            if (o.putId < putId) lo = mid + 1;
            else if (o.putId > putId) hi = mid - 1;
            else return o.processing ? o : null;
        }
        return null;
    }

    int size() {
        return live;
    }

    boolean isEmpty() {
        return live == 0;
    }

    /** The object at position {@code i} (from 0 to {@link #span()}), or null when it was removed. */
    ObjectMeta at(int i) {
        ObjectMeta o = queue[head + i];
        return o.processing ? o : null;
    }

    /** Positions to look at with {@link #at}: the objects present, in put-id order, and the removed ones between them. */
    int span() {
        return tail - head;
    }

    private void compact() {
        int w = 0;
        for (int i = head; i < tail; i++) if (queue[i].processing) queue[w++] = queue[i];
        Arrays.fill(queue, w, tail, null);
        head = 0;
        tail = w;
    }
}
