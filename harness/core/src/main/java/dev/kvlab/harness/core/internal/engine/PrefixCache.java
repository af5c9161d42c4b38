package dev.kvlab.harness.core.internal.engine;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One instance's HBM paged KV pool with a prefix cache (vLLM's automatic prefix caching): {@code capacity}
 * blocks, each free, private to a running sequence, or keyed (holding a full prompt block named by its chained
 * key). Keyed blocks carry reference counts; unreferenced keyed blocks stay cached in LRU order and are evicted
 * (to the DRAM tier when there is one) when space is needed. Only a contiguous prefix of keys counts as a hit.
 * With a {@code keptLimit} the keyed blocks are at most that many (an engine whose prefix cache is a bounded tier of
 * its own, not the free pool): a block that would exceed it evicts unreferenced cached blocks, LRU first (referenced
 * ones may exceed it while they are used). Deterministic: no iteration over hash order.
 */
public final class PrefixCache {

    private static final class Block {
        final long key;
        int refs;
        Block prev, next; // LRU links while refs == 0

        Block(long key) {
            this.key = key;
        }
    }

    private final long capacity;
    private final LongMap<Block> keyed;
    private final Block lru = new Block(0); // sentinel: lru.next is least recently used
    private int lruSize;
    private long privateBlocks;
    private final DramTier dram;
    private final long keptLimit;
    private long evictions;

    public PrefixCache(long capacityBlocks, DramTier dram) {
        this(capacityBlocks, dram, 0);
    }

    /** A pool of {@code capacityBlocks} whose keyed blocks are at most {@code keptLimit} (0: no bound but the pool's). */
    public PrefixCache(long capacityBlocks, DramTier dram, long keptLimit) {
        if (capacityBlocks < 1) throw new IllegalArgumentException("capacity must be >= 1 block");
        if (keptLimit < 0) throw new IllegalArgumentException("kept limit must be >= 0");
        this.keptLimit = keptLimit == 0 ? Long.MAX_VALUE : keptLimit;
        this.capacity = capacityBlocks;
        this.dram = dram;
        this.keyed = new LongMap<>((int) Math.min(1 << 20, capacityBlocks));
        lru.prev = lru.next = lru;
    }

    public long capacity() {
        return capacity;
    }

    public long freeBlocks() {
        return capacity - privateBlocks - keyed.size();
    }

    /** Blocks that could be made free by evicting unreferenced cached blocks. */
    public int evictableBlocks() {
        return lruSize;
    }

    public long usedBlocks() {
        return privateBlocks + keyed.size() - lruSize;
    }

    /** Diagnostics: private blocks, keyed blocks, referenced keyed blocks. */
    public String accounting() {
        return "private=" + privateBlocks + " keyed=" + keyed.size() + " referenced=" + (keyed.size() - lruSize)
                + " lru=" + lruSize;
    }

    public DramTier dram() {
        return dram;
    }

    public long evictions() {
        return evictions;
    }

    /** Contiguous leading blocks of {@code keys[0, max)} held in HBM. */
    public int hbmHits(long[] keys, int max) {
        int n = 0;
        while (n < max && keyed.containsKey(keys[n])) n++;
        return n;
    }

    /** Of the first {@code n} keys (all cached), how many are unreferenced (counted in {@link #evictableBlocks()}). */
    public int unreferenced(long[] keys, int n) {
        int c = 0;
        for (int i = 0; i < n; i++) if (keyed.get(keys[i]).refs == 0) c++;
        return c;
    }

    /** Contiguous blocks after the first {@code from} held in DRAM (0 without a DRAM tier). */
    public int dramHits(long[] keys, int from, int max) {
        if (dram == null) return 0;
        int n = 0;
        while (from + n < max && dram.contains(keys[from + n])) n++;
        return n;
    }

    /** True when {@code newBlocks} more blocks can be had after pinning {@code pinned} hits, {@code pinnedUnreferenced} of them cached-unreferenced. */
    public boolean canAllocate(long newBlocks, int pinnedUnreferenced) {
        return freeBlocks() + (lruSize - pinnedUnreferenced) >= newBlocks;
    }

    /** References the first {@code n} cached keys (they must be present). */
    public void pin(long[] keys, int n) {
        for (int i = 0; i < n; i++) {
            Block b = keyed.get(keys[i]);
            if (b.refs++ == 0) unlink(b);
        }
    }

    /** Takes {@code n} private blocks, evicting unreferenced cached blocks (LRU first) as needed. */
    public void allocate(long n) {
        while (freeBlocks() < n) {
            if (lruSize == 0)
                throw new IllegalStateException(
                        "allocate " + n + " with " + freeBlocks() + " free and nothing evictable");
            evictOne();
        }
        privateBlocks += n;
    }

    /** Returns {@code n} private blocks. */
    public void free(long n) {
        privateBlocks -= n;
        if (privateBlocks < 0) throw new IllegalStateException("freed more blocks than allocated");
    }

    /**
     * Turns one of the caller's private blocks into the keyed block {@code key}, referenced by the caller. When
     * {@code key} is already cached (someone computed it meanwhile) the private block is freed and the cached one
     * referenced instead. Also records the key in the DRAM tier's recency.
     */
    public void keyPrivate(long key) {
        Block b = keyed.get(key);
        privateBlocks--;
        if (b != null) {
            if (b.refs++ == 0) unlink(b);
            return;
        }
        b = new Block(key);
        b.refs = 1;
        keyed.put(key, b);
        trimToLimit();
    }

    /** Evicts unreferenced cached blocks (LRU first) while the keyed blocks exceed the kept limit. */
    private void trimToLimit() {
        while (keyed.size() > keptLimit && lruSize > 0) evictOne();
    }

    /**
     * Drops one reference of each of the first {@code n} keys; unreferenced blocks stay cached (most recently used),
     * the last key first, so that a chain's tail is evicted before its head (vLLM frees a request's blocks in reverse
     * order for this; llama.cpp's kept blocks go leaf first): evicting a head would lose every hit behind it.
     */
    public void release(long[] keys, int n) {
        for (int i = n - 1; i >= 0; i--) {
            Block b = keyed.get(keys[i]);
            if (b == null || b.refs <= 0) throw new IllegalStateException("release of a block that is not referenced");
            if (--b.refs == 0) linkLast(b);
        }
        trimToLimit();
    }

    /** Contiguous hits of {@code keys[0, max)}: HBM then DRAM (for routing; changes nothing). */
    public int prefixHits(long[] keys, int max) {
        int h = hbmHits(keys, max);
        return h + dramHits(keys, h, max);
    }

    private void evictOne() {
        Block b = lru.next;
        unlink(b);
        keyed.remove(b.key);
        evictions++;
        if (dram != null) dram.put(b.key);
    }

    private void unlink(Block b) {
        b.prev.next = b.next;
        b.next.prev = b.prev;
        b.prev = b.next = null;
        lruSize--;
    }

    private void linkLast(Block b) {
        b.prev = lru.prev;
        b.next = lru;
        lru.prev.next = b;
        lru.prev = b;
        lruSize++;
    }

    /** Per-instance host-DRAM tier: an LRU set of block keys HBM evicted (inclusive of nothing else). */
    public static final class DramTier {
        private final long capacity;
        private final LinkedHashMap<Long, Boolean> lru;

        public DramTier(long capacityBlocks) {
            this.capacity = capacityBlocks;
            this.lru = new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                    return size() > DramTier.this.capacity;
                }
            };
        }

        public boolean contains(long key) {
            return lru.containsKey(key);
        }

        /** Marks {@code key} used (moves it to most recently used). */
        public void touch(long key) {
            lru.get(key);
        }

        public void put(long key) {
            if (capacity > 0) lru.put(key, Boolean.TRUE);
        }

        public int size() {
            return lru.size();
        }
    }
}
