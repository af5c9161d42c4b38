package dev.kvlab.store.internal.master;

/**
 * An offset/bin allocator over one segment (after Sebastian Aaltonen's OffsetAllocator, which Mooncake uses):
 * allocation is offset arithmetic only, no memory is touched. Free blocks live in size bins (a small float:
 * 3 mantissa bits), found through a bitmap; allocation takes the first block of the first non-empty bin that
 * is large enough for sure and splits it; freeing coalesces with free address neighbours. O(1) apart from the
 * bitmap scan (8 words). Not thread-safe: the caller holds a lock. Deterministic.
 */
final class OffsetAllocator {

    /** An allocated (or free) range of the segment. Callers keep it to free the range later. */
    public static final class Block {
        long offset;
        long size;
        boolean free;
        Block prev, next; // address neighbours
        Block binPrev, binNext; // free list of its bin
        int bin = -1;

        public long offset() {
            return offset;
        }

        public long size() {
            return size;
        }
    }

    static final int BINS = 512;

    private final long size;
    private final long alignment;
    private final Block[] heads = new Block[BINS];
    private final long[] used = new long[BINS / 64];
    private long freeBytes;

    public OffsetAllocator(long size, long alignment) {
        if (size <= 0) throw new IllegalArgumentException("segment size must be > 0, got " + size);
        if (alignment <= 0 || Long.bitCount(alignment) != 1)
            throw new IllegalArgumentException("alignment must be a power of two, got " + alignment);
        this.size = size;
        this.alignment = alignment;
        Block all = new Block();
        all.offset = 0;
        all.size = size;
        all.free = true;
        insert(all);
        freeBytes = size;
    }

    public long size() {
        return size;
    }

    public long freeBytes() {
        return freeBytes;
    }

    public long usedBytes() {
        return size - freeBytes;
    }

    /** The bytes an allocation of {@code bytes} occupies (rounded up to the alignment). */
    public long footprint(long bytes) {
        long b = Math.max(bytes, 1);
        return (b + alignment - 1) & -alignment;
    }

    /** Allocates {@code bytes}; null when no free block is large enough. */
    public Block allocate(long bytes) {
        long need = footprint(bytes);
        if (need > freeBytes) return null;
        int bin = findBin(roundUp(need));
        if (bin < 0) return null;
        Block b = heads[bin];
        unlink(b);
        long rest = b.size - need;
        if (rest > 0) {
            Block r = new Block();
            r.offset = b.offset + need;
            r.size = rest;
            r.free = true;
            r.prev = b;
            r.next = b.next;
            if (b.next != null) b.next.prev = r;
            b.next = r;
            insert(r);
            b.size = need;
        }
        b.free = false;
        freeBytes -= need;
        return b;
    }

    /**
     * Lays out a fresh allocator (nothing allocated yet) with blocks at the given places: {@code offsets} ascending, each
     * block {@code sizes[i]} bytes. Returns the blocks in the same order; null for one that overlaps the block before it,
     * is not aligned or passes the segment's end (that range is left free). A new leader's start from its standby view.
     */
    public Block[] reserve(long[] offsets, long[] sizes) {
        if (freeBytes != size) throw new IllegalStateException("reserve needs a fresh allocator");
        java.util.Arrays.fill(heads, null);
        java.util.Arrays.fill(used, 0);
        Block[] out = new Block[offsets.length];
        Block last = null;
        long cursor = 0;
        for (int i = 0; i < offsets.length; i++) {
            long o = offsets[i], sz = sizes[i];
            if (o < cursor || sz <= 0 || o % alignment != 0 || o > size - sz) continue;
            if (o > cursor) last = link(last, cursor, o - cursor, true);
            last = link(last, o, sz, false);
            out[i] = last;
            cursor = o + sz;
        }
        if (cursor < size) link(last, cursor, size - cursor, true);
        return out;
    }

    private Block link(Block prev, long offset, long bytes, boolean free) {
        Block b = new Block();
        b.offset = offset;
        b.size = bytes;
        b.prev = prev;
        if (prev != null) prev.next = b;
        if (free) {
            b.free = true;
            insert(b);
        } else {
            freeBytes -= bytes;
        }
        return b;
    }

    /** Returns {@code b} to the free space, merging it with free neighbours. Freeing twice is an error. */
    public void free(Block b) {
        if (b.free) throw new IllegalStateException("block at " + b.offset + " freed twice");
        freeBytes += b.size;
        b.free = true;
        Block p = b.prev;
        if (p != null && p.free) {
            unlink(p);
            p.size += b.size;
            p.next = b.next;
            if (b.next != null) b.next.prev = p;
            b = p;
        }
        Block n = b.next;
        if (n != null && n.free) {
            unlink(n);
            b.size += n.size;
            b.next = n.next;
            if (n.next != null) n.next.prev = b;
        }
        insert(b);
    }

    /** Size of the largest block that could certainly be allocated now (a lower bound of the largest free block). */
    public long largestFreeLowerBound() {
        for (int w = used.length - 1; w >= 0; w--) {
            if (used[w] != 0) {
                int bin = w * 64 + 63 - Long.numberOfLeadingZeros(used[w]);
                long best = 0;
                for (Block b = heads[bin]; b != null; b = b.binNext) best = Math.max(best, b.size);
                return best;
            }
        }
        return 0;
    }

    private void insert(Block b) {
        int bin = roundDown(b.size);
        b.bin = bin;
        b.binPrev = null;
        b.binNext = heads[bin];
        if (heads[bin] != null) heads[bin].binPrev = b;
        heads[bin] = b;
        used[bin >>> 6] |= 1L << (bin & 63);
    }

    private void unlink(Block b) {
        int bin = b.bin;
        if (b.binPrev != null) b.binPrev.binNext = b.binNext;
        else heads[bin] = b.binNext;
        if (b.binNext != null) b.binNext.binPrev = b.binPrev;
        if (heads[bin] == null) used[bin >>> 6] &= ~(1L << (bin & 63));
        b.binPrev = b.binNext = null;
        b.bin = -1;
    }

    private int findBin(int from) {
        if (from >= BINS) return -1;
        int w = from >>> 6;
        long bits = used[w] & (-1L << (from & 63));
        while (true) {
            if (bits != 0) return (w << 6) + Long.numberOfTrailingZeros(bits);
            if (++w == used.length) return -1;
            bits = used[w];
        }
    }

    /** Bin of a free block of {@code size}: every size in the bin is >= the bin's base size. */
    static int roundDown(long size) {
        if (size < 8) return (int) size;
        int e = 63 - Long.numberOfLeadingZeros(size);
        int m = (int) ((size >>> (e - 3)) & 7);
        return ((e - 2) << 3) | m;
    }

    /** Smallest bin whose every block is >= {@code size}. */
    static int roundUp(long size) {
        if (size < 8) return (int) size;
        int e = 63 - Long.numberOfLeadingZeros(size);
        int bin = roundDown(size);
        return (size & ((1L << (e - 3)) - 1)) != 0 ? bin + 1 : bin;
    }

    /** Base size of {@code bin}. */
    static long binSize(int bin) {
        if (bin < 8) return bin;
        int e = (bin >>> 3) + 2;
        return (8L | (bin & 7)) << (e - 3);
    }
}
