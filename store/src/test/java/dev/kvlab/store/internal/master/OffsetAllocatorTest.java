package dev.kvlab.store.internal.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OffsetAllocatorTest {

    @Test
    void binsAreMonotonicAndRoundUpCoversTheSize() {
        for (long s = 1; s < 1 << 20; s += 7) {
            assertThat(OffsetAllocator.binSize(OffsetAllocator.roundDown(s))).isLessThanOrEqualTo(s);
            assertThat(OffsetAllocator.binSize(OffsetAllocator.roundUp(s))).isGreaterThanOrEqualTo(s);
            assertThat(OffsetAllocator.roundDown(s + 1)).isGreaterThanOrEqualTo(OffsetAllocator.roundDown(s));
        }
        assertThat(OffsetAllocator.roundDown(Long.MAX_VALUE)).isLessThan(OffsetAllocator.BINS);
    }

    @Test
    void fillsExactlyAndRefusesWhenFull() {
        OffsetAllocator a = new OffsetAllocator(1024, 64);
        List<OffsetAllocator.Block> bs = new ArrayList<>();
        for (int i = 0; i < 16; i++) bs.add(a.allocate(64));
        assertThat(bs).doesNotContainNull();
        assertThat(a.freeBytes()).isZero();
        assertThat(a.allocate(1)).isNull();
        a.free(bs.get(3));
        assertThat(a.allocate(64).offset()).isEqualTo(bs.get(3).offset());
        a.free(bs.get(0));
        assertThat(a.freeBytes()).isEqualTo(64);
    }

    @Test
    void freeingCoalescesBackIntoOneBlock() {
        OffsetAllocator a = new OffsetAllocator(1 << 20, 64);
        List<OffsetAllocator.Block> bs = new ArrayList<>();
        for (int i = 0; i < 100; i++) bs.add(a.allocate(1000 + i));
        for (int i = 0; i < bs.size(); i += 2) a.free(bs.get(i));
        for (int i = 1; i < bs.size(); i += 2) a.free(bs.get(i));
        assertThat(a.freeBytes()).isEqualTo(1 << 20);
        assertThat(a.allocate(1 << 20)).isNotNull();
    }

    @Test
    void randomAllocationsNeverOverlapAndStayInBounds() {
        Random r = new Random(7);
        long size = 8L << 20;
        OffsetAllocator a = new OffsetAllocator(size, 64);
        List<OffsetAllocator.Block> live = new ArrayList<>();
        for (int step = 0; step < 20_000; step++) {
            if (!live.isEmpty() && r.nextInt(3) == 0) {
                a.free(live.remove(r.nextInt(live.size())));
            } else {
                OffsetAllocator.Block b = a.allocate(1 + r.nextInt(256 * 1024));
                if (b != null) live.add(b);
            }
        }
        live.sort((x, y) -> Long.compare(x.offset(), y.offset()));
        long end = 0, total = 0;
        for (OffsetAllocator.Block b : live) {
            assertThat(b.offset()).isGreaterThanOrEqualTo(end);
            assertThat(b.offset() % 64).isZero();
            end = b.offset() + b.size();
            total += b.size();
        }
        assertThat(end).isLessThanOrEqualTo(size);
        assertThat(a.usedBytes()).isEqualTo(total);
    }

    @Test
    void doubleFreeIsRefused() {
        OffsetAllocator a = new OffsetAllocator(4096, 64);
        OffsetAllocator.Block b = a.allocate(100);
        a.free(b);
        assertThatThrownBy(() -> a.free(b)).isInstanceOf(IllegalStateException.class);
    }
}
