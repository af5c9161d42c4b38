package dev.kvlab.harness.llama.internal.realkv;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An instance's local tier: the KV cells of recent prompts' full blocks that its (unified) llama.cpp context keeps
 * after their requests, least recently used evicted first, one block at a time.
 *
 * <p>A kept block is its cells tagged with a <em>cache sequence</em> id: a request's sequence shares them with
 * {@code llama_memory_seq_cp} (metadata only in a unified context; the rows stay where they were computed), and
 * evicting a block untags them with {@code llama_memory_seq_rm}, which frees the cells unless a running request still
 * holds them. Keeping cells in the context (rather than copies of their bytes) is what makes a local hit free of any
 * copy; tagging them with their own ids (rather than keeping finished requests' sequences) lets one prefix serve many
 * prompts and lets a prompt's blocks leave one at a time.
 *
 * <p>Blocks are named by their chained keys, so a block is kept once whatever prompts share it, and a match is the
 * longest run of a prompt's keys from its first block that the cache holds, each at its own depth. Using a chain
 * touches its blocks from the deepest up, so a block is always more recent than every block after it in any chain:
 * the least recently used block is never needed by another kept block, and evicting it keeps every chain whole.
 *
 * <p>Cache sequence ids are packed by depth: an id holds at most one block at each depth (positions never clash), a
 * block taking its parent's id when that is free at its depth. When no id is free at a block's depth, that block and
 * the rest of its chain are not kept ({@link #unplaced}). Not thread-safe: the instance's engine thread owns it.
 */
final class LocalPrefixCache {

    /** What the cache does to the context's cells. */
    interface Cells {
        /** Cells of {@code src} at positions {@code [p0, p1)} also become {@code dst}'s. */
        void share(int src, int dst, int p0, int p1);

        /** {@code seq} lets go of its cells at positions {@code [p0, p1)}. */
        void release(int seq, int p0, int p1);
    }

    private static final class Block {
        final long key;
        final Block parent;
        final int depth, seq;
        int children;

        Block(long key, Block parent, int depth, int seq) {
            this.key = key;
            this.parent = parent;
            this.depth = depth;
            this.seq = seq;
        }
    }

    private final Cells cells;
    private final int firstSeq, seqs, capacity, blockTokens;
    /** Kept blocks by key. */
    private final Map<Long, Block> blocks = new HashMap<>();
    /** The same blocks, least recently used first ({@code get} marks one used). */
    private final LinkedHashMap<Long, Block> byAge = new LinkedHashMap<>(16, 0.75f, true);
    /** Per depth, which cache sequence ids hold a block there. */
    private final Map<Integer, BitSet> taken = new HashMap<>();

    private long evictions, unplaced;

    /**
     * {@code seqs} cache sequence ids from {@code firstSeq} on, at most {@code capacity} blocks of {@code blockTokens}
     * tokens.
     */
    LocalPrefixCache(Cells cells, int firstSeq, int seqs, int capacity, int blockTokens) {
        if (capacity < 0 || seqs < 0 || (capacity > 0 && seqs < 1) || blockTokens < 1)
            throw new IllegalArgumentException(
                    "local cache of " + capacity + " blocks on " + seqs + " sequence ids, blocks of " + blockTokens);
        this.cells = cells;
        this.firstSeq = firstSeq;
        this.seqs = seqs;
        this.capacity = capacity;
        this.blockTokens = blockTokens;
    }

    int capacity() {
        return capacity;
    }

    int size() {
        return blocks.size();
    }

    long evictions() {
        return evictions;
    }

    long unplaced() {
        return unplaced;
    }

    /** Blocks from the first of {@code keys} that the cache holds in a row, at most {@code max}; touches nothing. */
    int match(long[] keys, int max) {
        int n = Math.min(max, keys.length);
        Block parent = null;
        for (int i = 0; i < n; i++) {
            Block b = blocks.get(keys[i]);
            if (b == null) return i;
            if (b.depth != i || b.parent != parent) return i; // a key met at another depth: never taken for this block
            parent = b;
        }
        return n;
    }

    /**
     * Shares the first {@code n} blocks of {@code keys} (held: {@link #match} said so) with sequence {@code seq} and
     * marks them used, deepest first.
     */
    void lend(long[] keys, int n, int seq) {
        if (match(keys, n) < n) throw new IllegalStateException("lend of " + n + " blocks the cache does not hold");
        int i = 0;
        while (i < n) { // one share per run of blocks on the same cache sequence
            int s = blocks.get(keys[i]).seq, j = i + 1;
            while (j < n && blocks.get(keys[j]).seq == s) j++;
            cells.share(s, seq, i * blockTokens, j * blockTokens);
            i = j;
        }
        for (int k = n - 1; k >= 0; k--) byAge.get(keys[k]); // the first block most recent
    }

    /**
     * Keeps blocks {@code [0, to)} of {@code keys}, whose cells sequence {@code seq} holds (positions from 0): blocks
     * already kept are marked used, new ones tagged, the least recently used evicted to make room. Stops at the first
     * block it cannot place. Returns how many blocks from the first the cache now holds.
     */
    int keep(long[] keys, int to, int seq) {
        if (capacity == 0) return 0;
        int held = match(keys, to);
        Block parent = held == 0 ? null : blocks.get(keys[held - 1]);
        int placed = held;
        for (int d = held; d < to; d++) {
            if (blocks.size() >= capacity && !evictOne(parent)) break;
            int id = freeSeq(d, parent);
            if (id < 0) {
                unplaced += to - d;
                break;
            }
            Block b = new Block(keys[d], parent, d, id);
            cells.share(seq, id, d * blockTokens, (d + 1) * blockTokens);
            taken.computeIfAbsent(d, k -> new BitSet()).set(id - firstSeq);
            blocks.put(keys[d], b);
            byAge.put(keys[d], b);
            if (parent != null) parent.children++;
            parent = b;
            placed = d + 1;
        }
        for (int k = placed - 1; k >= 0; k--) byAge.get(keys[k]);
        return placed;
    }

    /** A cache sequence id free at depth {@code d}: the parent's when free, else the lowest; -1 when none is. */
    private int freeSeq(int d, Block parent) {
        BitSet t = taken.get(d);
        if (t == null) return parent == null ? firstSeq : parent.seq;
        if (parent != null && !t.get(parent.seq - firstSeq)) return parent.seq;
        int i = t.nextClearBit(0);
        return i < seqs ? firstSeq + i : -1;
    }

    /**
     * Evicts the least recently used block that is no kept block's parent and not {@code protect} (the block the
     * caller is extending). False when every kept block is protected.
     */
    private boolean evictOne(Block protect) {
        Iterator<Block> it = byAge.values().iterator();
        while (it.hasNext()) {
            Block b = it.next();
            if (b.children > 0 || b == protect) continue; // by the touch order the oldest is a leaf; kept for safety
            it.remove();
            blocks.remove(b.key);
            cells.release(b.seq, b.depth * blockTokens, (b.depth + 1) * blockTokens);
            taken.get(b.depth).clear(b.seq - firstSeq);
            if (b.parent != null) b.parent.children--;
            evictions++;
            return true;
        }
        return false;
    }

    /** What the cache holds, for {@link #restore}: the blocks least recently used first, the ids taken, the counters. */
    record Snapshot(List<long[]> blocks, Map<Integer, BitSet> taken, long evictions, long unplaced) {}

    /** The cache's bookkeeping now (the cells themselves are the context's: snapshot them with it). */
    Snapshot snapshot() {
        List<long[]> bs = new ArrayList<>(byAge.size());
        for (Block b : byAge.values())
            bs.add(new long[] {
                b.key, b.parent == null ? 0 : 1, b.parent == null ? 0 : b.parent.key, b.depth, b.seq, b.children
            });
        Map<Integer, BitSet> t = new HashMap<>();
        taken.forEach((d, bits) -> t.put(d, (BitSet) bits.clone()));
        return new Snapshot(bs, t, evictions, unplaced);
    }

    /** Puts back what {@link #snapshot} took (with the context's cells restored to the same moment). */
    void restore(Snapshot s) {
        blocks.clear();
        byAge.clear();
        taken.clear();
        List<long[]> byDepth = new ArrayList<>(s.blocks());
        byDepth.sort(java.util.Comparator.comparingLong(a -> a[3])); // parents first
        for (long[] a : byDepth) {
            Block b = new Block(a[0], a[1] == 0 ? null : blocks.get(a[2]), (int) a[3], (int) a[4]);
            b.children = (int) a[5];
            blocks.put(b.key, b);
        }
        for (long[] a : s.blocks()) byAge.put(a[0], blocks.get(a[0]));
        s.taken().forEach((d, bits) -> taken.put(d, (BitSet) bits.clone()));
        evictions = s.evictions();
        unplaced = s.unplaced();
    }

    /** Every kept block's key, least recently used first (for tests and the cell's state dump). */
    List<Long> keysByAge() {
        return new ArrayList<>(byAge.keySet());
    }
}
