package dev.kvlab.harness.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.core.internal.engine.PrefixCache;
import org.junit.jupiter.api.Test;

class PrefixCacheTest {

    @Test
    void onlyAContiguousPrefixIsAHit() {
        PrefixCache c = new PrefixCache(10, null);
        long[] a = {1, 2, 3, 4};
        c.allocate(4);
        c.keyPrivate(1);
        c.keyPrivate(2);
        c.keyPrivate(4); // 3 is missing: 4 must not count
        assertThat(c.hbmHits(a, 4)).isEqualTo(2);
        assertThat(c.hbmHits(new long[] {9, 1, 2}, 3)).isZero();
        assertThat(c.hbmHits(a, 1)).isEqualTo(1);
    }

    @Test
    void referencedBlocksAreNeverEvictedAndUnreferencedGoLeastRecentlyUsedFirst() {
        PrefixCache c = new PrefixCache(4, null);
        long[] x = {10, 11};
        long[] y = {20, 21};
        c.allocate(2);
        c.keyPrivate(10);
        c.keyPrivate(11);
        c.allocate(2);
        c.keyPrivate(20);
        c.keyPrivate(21);
        assertThat(c.freeBlocks()).isZero();
        assertThat(c.canAllocate(1, 0)).isFalse(); // everything referenced
        c.release(x, 2); // x unreferenced first: LRU
        c.release(y, 2);
        assertThat(c.evictableBlocks()).isEqualTo(4);
        c.pin(y, 2); // y referenced again: not evictable
        assertThat(c.canAllocate(2, 0)).isTrue();
        assertThat(c.canAllocate(3, 0)).isFalse();
        c.allocate(2); // evicts 10 and 11
        assertThat(c.hbmHits(x, 2)).isZero();
        assertThat(c.hbmHits(y, 2)).isEqualTo(2);
        assertThat(c.evictions()).isEqualTo(2);
        c.free(2);
        c.release(y, 2);
        assertThat(c.freeBlocks() + c.evictableBlocks()).isEqualTo(4);
    }

    @Test
    void keyingABlockSomeoneElseComputedSharesIt() {
        PrefixCache c = new PrefixCache(4, null);
        c.allocate(1);
        c.keyPrivate(7);
        c.allocate(1);
        c.keyPrivate(7); // a second sequence computed the same block meanwhile: its copy is freed
        assertThat(c.freeBlocks()).isEqualTo(3);
        c.release(new long[] {7}, 1);
        assertThat(c.evictableBlocks()).isZero(); // still referenced once
        c.release(new long[] {7}, 1);
        assertThat(c.evictableBlocks()).isEqualTo(1);
        assertThatThrownBy(() -> c.release(new long[] {7}, 1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void evictedBlocksMoveToTheDramTier() {
        PrefixCache.DramTier dram = new PrefixCache.DramTier(2);
        PrefixCache c = new PrefixCache(2, dram);
        long[] k = {1, 2, 3};
        c.allocate(2);
        c.keyPrivate(1);
        c.keyPrivate(2);
        c.release(k, 2);
        c.allocate(2); // evicts 1 then 2 into DRAM
        assertThat(c.hbmHits(k, 3)).isZero();
        assertThat(c.dramHits(k, 0, 3)).isEqualTo(2);
        assertThat(c.prefixHits(k, 3)).isEqualTo(2);
        dram.put(3);
        dram.put(4); // capacity 2: the oldest goes
        assertThat(dram.contains(1)).isFalse();
        assertThat(dram.size()).isEqualTo(2);
    }

    @Test
    void aChainsTailIsEvictedBeforeItsHeadSoTheHeadStillHits() {
        PrefixCache c = new PrefixCache(4, null);
        long[] x = {10, 11, 12};
        c.allocate(3);
        for (long k : x) c.keyPrivate(k);
        c.release(x, 3);
        c.allocate(3); // one block is free, two must go: the tail 12, then 11; the head 10 stays and still hits
        assertThat(c.hbmHits(x, 3)).isEqualTo(1);
    }

    @Test
    void aKeptLimitBoundsTheCachedBlocksBelowThePool() {
        PrefixCache c = new PrefixCache(100, null, 3);
        long[] x = {1, 2}, y = {3, 4};
        c.allocate(2);
        c.keyPrivate(1);
        c.keyPrivate(2);
        c.release(x, 2);
        c.allocate(2);
        c.keyPrivate(3); // 3 keyed blocks: at the limit
        assertThat(c.hbmHits(x, 2)).isEqualTo(2);
        c.keyPrivate(
                4); // a fourth: the least recently used unreferenced block (x's tail) goes, though the pool has room
        assertThat(c.hbmHits(x, 2)).isEqualTo(1);
        assertThat(c.hbmHits(y, 2)).isEqualTo(2);
        assertThat(c.evictions()).isEqualTo(1);
        c.pin(x, 1);
        c.release(y, 2); // referenced blocks may exceed the limit while used; released, the cache shrinks back to it
        c.release(x, 1);
        assertThat(c.evictableBlocks()).isEqualTo(3);
        assertThat(new PrefixCache(100, null).evictableBlocks()).isZero();
    }
}
