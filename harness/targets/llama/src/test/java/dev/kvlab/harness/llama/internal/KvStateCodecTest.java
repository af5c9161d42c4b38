package dev.kvlab.harness.llama.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KvStateCodecTest {

    static List<MemorySegment> randomBlocks(KvStateLayout layout, int blockTokens, int n, Arena a, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<MemorySegment> out = new ArrayList<>();
        for (int b = 0; b < n; b++) {
            byte[] bytes = new byte[(int) KvStateCodec.blockBytes(layout, blockTokens)];
            for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) r.nextInt();
            out.add(a.allocateFrom(JAVA_BYTE, bytes));
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void blocksAssembleIntoAStateThatSplitsBackIntoTheSameBlocks(boolean vTrans) {
        KvStateLayout layout = KvStateLayout.f16(2, 2, 16, vTrans);
        assertEquals(2 * 2 * 2 * 16 * 2, layout.bytesPerToken());
        try (Arena a = Arena.ofConfined()) {
            List<MemorySegment> blocks = randomBlocks(layout, 8, 5, a, 1);
            MemorySegment state = KvStateCodec.assemble(layout, 8, blocks, a);
            assertEquals(layout.stateBytes(40), state.byteSize());
            KvStateCodec.Parsed p = KvStateCodec.parse(state);
            assertEquals(40, p.tokens());
            assertEquals(layout, p.layout());
            List<MemorySegment> again = KvStateCodec.split(state, 8, a);
            assertEquals(5, again.size());
            for (int b = 0; b < 5; b++)
                assertArrayEquals(blocks.get(b).toArray(JAVA_BYTE), again.get(b).toArray(JAVA_BYTE), "block " + b);
            // the first 3 blocks alone: a shorter state whose blocks are the same 3
            MemorySegment prefix = KvStateCodec.assemble(layout, 8, blocks.subList(0, 3), a);
            List<MemorySegment> three = KvStateCodec.split(prefix, 8, a);
            for (int b = 0; b < 3; b++)
                assertArrayEquals(blocks.get(b).toArray(JAVA_BYTE), three.get(b).toArray(JAVA_BYTE));
            // resplitting with a smaller block size gives the same bytes, in finer pieces
            List<MemorySegment> halves = KvStateCodec.split(state, 4, a);
            MemorySegment rebuilt = KvStateCodec.assemble(layout, 4, halves, a);
            assertArrayEquals(state.toArray(JAVA_BYTE), rebuilt.toArray(JAVA_BYTE));
        }
    }

    @Test
    void aStateInTheSecondOfThreeStreamsRoundTrips() {
        KvStateLayout one = KvStateLayout.f16(3, 1, 8, false);
        KvStateLayout layout = new KvStateLayout(1, 3, 1, false, one.layers());
        try (Arena a = Arena.ofConfined()) {
            List<MemorySegment> blocks = randomBlocks(layout, 4, 3, a, 2);
            MemorySegment state = KvStateCodec.assemble(layout, 4, blocks, a);
            assertEquals(layout, KvStateCodec.parse(state).layout());
            List<MemorySegment> again = KvStateCodec.split(state, 4, a);
            for (int b = 0; b < 3; b++)
                assertArrayEquals(blocks.get(b).toArray(JAVA_BYTE), again.get(b).toArray(JAVA_BYTE));
        }
    }

    /**
     * A unified context writes a sequence's cells in cell order: a sequence that shares kept cells holds its positions
     * in any order. Blocks come out in position order all the same, whole runs of cells or single cells.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void cellsInAnyOrderSplitIntoTheBlocksOfTheirPositions(boolean vTrans) {
        KvStateLayout layout = KvStateLayout.f16(2, 2, 8, vTrans);
        try (Arena a = Arena.ofConfined()) {
            List<MemorySegment> blocks = randomBlocks(layout, 4, 4, a, 5);
            MemorySegment state = KvStateCodec.assemble(layout, 4, blocks, a);
            // cells: block 2, then block 0 reversed, then blocks 3 and 1 (a run of 8 cells holding positions 12…15,
            // 4…7)
            int[] posOfCell = {8, 9, 10, 11, 3, 2, 1, 0, 12, 13, 14, 15, 4, 5, 6, 7};
            MemorySegment shuffled = permute(layout, state, posOfCell, a);
            KvStateCodec.Parsed p = KvStateCodec.parse(shuffled);
            assertEquals(16, p.tokens());
            List<MemorySegment> again = KvStateCodec.split(shuffled, 4, a);
            for (int b = 0; b < 4; b++)
                assertArrayEquals(blocks.get(b).toArray(JAVA_BYTE), again.get(b).toArray(JAVA_BYTE), "block " + b);
            // and blocks assembled after a prefix carry their own positions
            MemorySegment tail = KvStateCodec.assemble(layout, 4, blocks.subList(2, 4), 8, a);
            assertEquals(8, tail.get(JAVA_INT_UNALIGNED, 16));
            assertEquals(15, tail.get(JAVA_INT_UNALIGNED, 16 + 7 * 12));
        }
    }

    /** {@code state} (cell i at position i) with its cells reordered: new cell i is the old cell {@code posOfCell[i]}. */
    private static MemorySegment permute(KvStateLayout layout, MemorySegment state, int[] posOfCell, Arena a) {
        int t = posOfCell.length;
        MemorySegment out = copy(state, a);
        for (int i = 0; i < t; i++) out.set(JAVA_INT_UNALIGNED, 16 + 12L * i, posOfCell[i]);
        long src = layout.dataStart(t);
        List<long[]> sections = new ArrayList<>(); // (offset, row bytes, rows) of every K and V section, in order
        for (KvStateLayout.Layer l : layout.layers()) {
            sections.add(new long[] {src + 12, l.kRowBytes(), 1});
            src += 12 + l.kRowBytes() * t;
        }
        for (KvStateLayout.Layer l : layout.layers()) {
            if (layout.vTrans()) sections.add(new long[] {src + 12, l.vElBytes(), l.vEmbd()});
            else sections.add(new long[] {src + 12, l.vRowBytes(), 1});
            src += 12 + l.vRowBytes() * t;
        }
        for (long[] sec : sections) {
            long row = sec[1], channel = row * t;
            for (long c = 0; c < sec[2]; c++)
                for (int i = 0; i < t; i++)
                    MemorySegment.copy(
                            state, sec[0] + c * channel + posOfCell[i] * row, out, sec[0] + c * channel + i * row, row);
        }
        return out;
    }

    @Test
    void aTailShorterThanABlockIsNotABlock() {
        KvStateLayout layout = KvStateLayout.f16(1, 1, 8, false);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = KvStateCodec.assemble(layout, 5, randomBlocks(layout, 5, 2, a, 3), a);
            assertEquals(1, KvStateCodec.split(state, 6, a).size());
            assertEquals(0, KvStateCodec.split(state, 11, a).size());
        }
    }

    @Test
    void statesTheCodecDoesNotUnderstandAreRefused() {
        KvStateLayout layout = KvStateLayout.f16(2, 1, 8, false);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = KvStateCodec.assemble(layout, 4, randomBlocks(layout, 4, 2, a, 4), a);
            assertRefused(state.asSlice(0, state.byteSize() - 1), "truncated");
            MemorySegment longer = a.allocate(state.byteSize() + 4);
            MemorySegment.copy(state, 0, longer, 0, state.byteSize());
            assertRefused(longer, "4 bytes after the state");
            MemorySegment magic = copy(state, a);
            magic.set(JAVA_INT_UNALIGNED, 0, 0x12345678);
            assertRefused(magic, "magic");
            MemorySegment order = copy(state, a);
            order.set(JAVA_INT_UNALIGNED, 16 + 12, 5); // cell 1 claims position 5, which cell 5 holds
            assertRefused(order, "position 5 held by cells 1 and 5");
            MemorySegment gap = copy(state, a);
            gap.set(JAVA_INT_UNALIGNED, 16 + 12, 8); // cell 1 claims position 8 of a sequence of 8 cells
            assertRefused(gap, "holds position 8");
            MemorySegment shared = copy(state, a);
            shared.set(JAVA_INT_UNALIGNED, 16 + 4, 2); // cell 0 in two sequences
            assertRefused(shared, "2 sequence ids");
            assertThrows(
                    IllegalArgumentException.class, () -> KvStateCodec.assemble(layout, 4, List.of(a.allocate(7)), a));
        }
    }

    private static MemorySegment copy(MemorySegment s, Arena a) {
        MemorySegment c = a.allocate(s.byteSize());
        MemorySegment.copy(s, 0, c, 0, s.byteSize());
        return c;
    }

    private static void assertRefused(MemorySegment s, String why) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KvStateCodec.parse(s));
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }

    /** A byte of the test's K or V data: a function of the layer, K or V, the position and the byte's index in that position's data. */
    private static byte value(int layer, boolean v, int pos, int i) {
        return (byte) (layer * 37 + (v ? 101 : 0) + pos * 13 + i * 7 + (pos * i) % 5);
    }

    /**
     * The bytes llama.cpp writes for one sequence ({@code llama_state_seq_get_data}), written here field by field from
     * its source at the pinned commit, not by the codec: {@code io_magic}, {@code seq_id} (llama-context.cpp
     * state_seq_get_data); {@code n_stream}, then per stream its cell count and, for the stream that holds cells, each
     * cell's {@code pos, n_seq_id, seq_id} in cell order, {@code v_trans, n_layer}, per layer K's type, row size and rows,
     * per layer V's type and row size and rows, or (transposed) type, element size, {@code n_embd_v_gqa} and each
     * channel's elements of every cell (llama-kv-cache.cpp state_write, state_write_meta, state_write_data). Cell
     * {@code c} holds position {@code posOfCell[c]}; K and V hold {@link #value}s of those positions.
     */
    private static byte[] llamaState(
            int seqId, int nStream, int stream, boolean vTrans, int layers, int kRow, int vEmbd, int[] posOfCell) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1 << 16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int cells = posOfCell.length, el = 2;
        b.putInt(0xaf143cd8).putInt(seqId).putInt(nStream);
        for (int s = 0; s < nStream; s++) {
            if (s != stream) {
                b.putInt(0);
                continue;
            }
            b.putInt(cells);
            for (int pos : posOfCell) b.putInt(pos).putInt(1).putInt(seqId);
            b.putInt(vTrans ? 1 : 0).putInt(layers);
            for (int l = 0; l < layers; l++) {
                b.putInt(1).putLong(kRow); // GGML_TYPE_F16
                for (int pos : posOfCell) for (int i = 0; i < kRow; i++) b.put(value(l, false, pos, i));
            }
            for (int l = 0; l < layers; l++) {
                b.putInt(1);
                if (!vTrans) {
                    b.putLong((long) el * vEmbd);
                    for (int pos : posOfCell) for (int i = 0; i < el * vEmbd; i++) b.put(value(l, true, pos, i));
                } else {
                    b.putInt(el).putInt(vEmbd);
                    for (int j = 0; j < vEmbd; j++)
                        for (int pos : posOfCell) for (int i = 0; i < el; i++) b.put(value(l, true, pos, j * el + i));
                }
            }
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    /** Block {@code block}'s bytes as the codec documents them: per layer K rows of its positions, then per layer V (rows, or per channel). */
    private static byte[] expectedBlock(int block, int bt, boolean vTrans, int layers, int kRow, int vEmbd) {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        int el = 2;
        for (int l = 0; l < layers; l++)
            for (int p = block * bt; p < (block + 1) * bt; p++)
                for (int i = 0; i < kRow; i++) o.write(value(l, false, p, i));
        for (int l = 0; l < layers; l++) {
            if (!vTrans)
                for (int p = block * bt; p < (block + 1) * bt; p++)
                    for (int i = 0; i < el * vEmbd; i++) o.write(value(l, true, p, i));
            else
                for (int j = 0; j < vEmbd; j++)
                    for (int p = block * bt; p < (block + 1) * bt; p++)
                        for (int i = 0; i < el; i++) o.write(value(l, true, p, j * el + i));
        }
        return o.toByteArray();
    }

    /**
     * The codec against llama.cpp's format written independently ({@link #llamaState}): a state as llama.cpp writes it,
     * its cells in order or not, in the second of two streams, splits into blocks holding exactly their positions' K and
     * V bytes, and the blocks assemble back into the very bytes llama.cpp writes for cells in position order.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aStateWrittenAsLlamaCppWritesItSplitsIntoItsPositionsBytes(boolean vTrans) {
        int layers = 3, kRow = 12, vEmbd = 5, bt = 4;
        int[] inOrder = java.util.stream.IntStream.range(0, 12).toArray(),
                shuffled = {4, 5, 6, 7, 0, 1, 2, 3, 11, 10, 9, 8};
        try (Arena a = Arena.ofConfined()) {
            for (int[] cells : new int[][] {inOrder, shuffled}) {
                MemorySegment state =
                        a.allocateFrom(JAVA_BYTE, llamaState(7, 2, 1, vTrans, layers, kRow, vEmbd, cells));
                KvStateCodec.Parsed p = KvStateCodec.parse(state);
                assertEquals(12, p.tokens());
                assertEquals(layers, p.layout().layers().size());
                assertEquals(vTrans, p.layout().vTrans());
                List<MemorySegment> blocks = KvStateCodec.split(state, bt, a);
                assertEquals(3, blocks.size());
                for (int b = 0; b < 3; b++)
                    assertArrayEquals(
                            expectedBlock(b, bt, vTrans, layers, kRow, vEmbd),
                            blocks.get(b).toArray(JAVA_BYTE),
                            "block " + b);
                MemorySegment back = KvStateCodec.assemble(p.layout(), bt, blocks, a);
                assertArrayEquals(llamaState(7, 2, 1, vTrans, layers, kRow, vEmbd, inOrder), back.toArray(JAVA_BYTE));
            }
        }
    }
}
