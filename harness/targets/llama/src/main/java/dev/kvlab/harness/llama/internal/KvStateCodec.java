package dev.kvlab.harness.llama.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits one sequence's KV state ({@code llama_state_seq_get_data}'s bytes, see {@link KvStateLayout}) into
 * per-block pieces of {@code blockTokens} tokens, and assembles blocks back into a state that
 * {@code llama_state_seq_set_data} accepts. Pieces are llama.cpp's own rows, copied, never converted. A state's cells
 * may come in any order (a unified context writes them in cell order, and a sequence that shares cells with others
 * holds them where they were made) but must hold positions {@code 0…T-1} once each; a state this codec does not
 * understand (another layout, a gap or a repeated position) is refused, never guessed at.
 */
public final class KvStateCodec {
    private KvStateCodec() {}

    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * A parsed state: its layout and token count (positions {@code 0…tokens-1}).
     *
     * @param layout the layout
     * @param tokens cells of the sequence
     * @param cellOfPos the state's cell (row) that holds position {@code p}; null when cell {@code i} holds position {@code i}
     */
    public record Parsed(KvStateLayout layout, int tokens, int[] cellOfPos) {
        public Parsed(KvStateLayout layout, int tokens) {
            this(layout, tokens, null);
        }

        /** The state's cell that holds position {@code p}. */
        int cell(int p) {
            return cellOfPos == null ? p : cellOfPos[p];
        }

        /** Full blocks of {@code blockTokens} in the state (a shorter tail is not a block). */
        public int fullBlocks(int blockTokens) {
            return tokens / blockTokens;
        }
    }

    /** Reads the state's layout, checking every header field and the total size. */
    public static Parsed parse(MemorySegment s) {
        Reader r = new Reader(s);
        if (r.i32() != KvStateLayout.MAGIC) throw bad("not a llama.cpp sequence state (magic)");
        int seqId = r.i32();
        int nStream = r.i32();
        if (nStream < 1 || nStream > 4096) throw bad("n_stream " + nStream);
        int stream = -1, cells = 0;
        for (int st = 0; st < nStream; st++) {
            int c = r.i32();
            if (c == 0) continue;
            if (stream >= 0) throw bad("cells in two streams");
            if (c < 0) throw bad("cell count " + Integer.toUnsignedString(c));
            stream = st;
            cells = c;
            int[] cellOfPos = null;
            for (int i = 0; i < c; i++) {
                int pos = r.i32(), nSeq = r.i32(), seq = r.i32();
                if (nSeq != 1)
                    throw bad("cell " + i + " has " + nSeq + " sequence ids (a cell extension or a shared cell?)");
                if (seq != seqId) throw bad("cell " + i + " of sequence " + seq + " in the state of " + seqId);
                if (pos < 0 || pos >= c)
                    throw bad("cell " + i + " holds position " + pos + ": the sequence's " + c
                            + " cells are not positions 0…" + (c - 1));
                if (pos != i && cellOfPos == null) {
                    cellOfPos = new int[c];
                    java.util.Arrays.fill(cellOfPos, -1);
                    for (int k = 0; k < i; k++) cellOfPos[k] = k;
                }
                if (cellOfPos != null) {
                    if (cellOfPos[pos] >= 0)
                        throw bad("position " + pos + " held by cells " + cellOfPos[pos] + " and " + i);
                    cellOfPos[pos] = i;
                }
            }
            int vTrans = r.i32(), nLayer = r.i32();
            if (vTrans != 0 && vTrans != 1) throw bad("v_trans " + vTrans);
            if (nLayer < 1 || nLayer > 100_000) throw bad("n_layer " + nLayer);
            int[] kType = new int[nLayer];
            long[] kRow = new long[nLayer];
            for (int l = 0; l < nLayer; l++) {
                kType[l] = r.i32();
                kRow[l] = r.i64();
                if (kRow[l] <= 0) throw bad("layer " + l + " K row of " + kRow[l] + " bytes");
                r.skip(kRow[l] * c);
            }
            List<KvStateLayout.Layer> layers = new ArrayList<>(nLayer);
            for (int l = 0; l < nLayer; l++) {
                int vType = r.i32();
                int el;
                int embd;
                if (vTrans == 0) {
                    long vRow = r.i64();
                    int size = typeSize(vType);
                    if (size <= 0 || vRow % size != 0)
                        throw bad("layer " + l + " V row of " + vRow + " bytes, type " + vType);
                    el = size;
                    embd = (int) (vRow / size);
                } else {
                    el = r.i32();
                    embd = r.i32();
                }
                if (el <= 0 || embd <= 0) throw bad("layer " + l + " V element " + el + " B × " + embd);
                r.skip((long) el * embd * c);
                layers.add(new KvStateLayout.Layer(kType[l], kRow[l], vType, el, embd));
            }
            KvStateLayout layout = new KvStateLayout(seqId, nStream, stream, vTrans == 1, layers);
            for (int rest = st + 1; rest < nStream; rest++) if (r.i32() != 0) throw bad("cells in two streams");
            if (r.position() != s.byteSize()) throw bad((s.byteSize() - r.position()) + " bytes after the state");
            return new Parsed(layout, cells, cellOfPos);
        }
        throw bad("the sequence holds no cells");
    }

    /** Element size of the ggml types a non-transposed V row may have here (f32, f16, bf16); 0 for others. */
    private static int typeSize(int ggmlType) {
        return switch (ggmlType) {
            case 0 -> 4;
            case 1, 30 -> 2;
            default -> 0;
        };
    }

    /** Bytes of one block of {@code blockTokens} tokens. */
    public static long blockBytes(KvStateLayout layout, int blockTokens) {
        return layout.bytesPerToken() * blockTokens;
    }

    /** Every full block of the state, each in a new segment from {@code alloc}. */
    public static List<MemorySegment> split(MemorySegment state, int blockTokens, SegmentAllocator alloc) {
        Parsed p = parse(state);
        int n = p.fullBlocks(blockTokens);
        List<MemorySegment> out = new ArrayList<>(n);
        for (int b = 0; b < n; b++) {
            MemorySegment dst = alloc.allocate(blockBytes(p.layout(), blockTokens), 16);
            copyBlock(p, state, blockTokens, b, dst);
            out.add(dst);
        }
        return out;
    }

    /**
     * Copies block {@code block} (positions {@code [block·B, (block+1)·B)}) of a parsed state into {@code dst}, in
     * position order whatever cells hold them: one copy per run of consecutive cells.
     */
    public static void copyBlock(Parsed p, MemorySegment state, int blockTokens, int block, MemorySegment dst) {
        if (blockTokens < 1 || (long) (block + 1) * blockTokens > p.tokens())
            throw new IllegalArgumentException(
                    "block " + block + " of " + blockTokens + " tokens is past the state's " + p.tokens() + " tokens");
        copyTokens(p, state, block * blockTokens, blockTokens, dst);
    }

    /**
     * Copies positions {@code [first, first+tokens)} of a parsed state into {@code dst} in a block's layout (a block
     * of {@code tokens} tokens: every layer's K rows, then every layer's V), whatever cells hold them; a prompt's
     * shorter last block is copied so.
     */
    public static void copyTokens(Parsed p, MemorySegment state, int first, int tokens, MemorySegment dst) {
        KvStateLayout lay = p.layout();
        int t = p.tokens();
        if (tokens < 1 || first < 0 || (long) first + tokens > t)
            throw new IllegalArgumentException("positions [" + first + ", " + ((long) first + tokens)
                    + ") are not in the state's " + t + " tokens");
        if (dst.byteSize() < blockBytes(lay, tokens))
            throw new IllegalArgumentException(
                    "block buffer of " + dst.byteSize() + " bytes, needs " + blockBytes(lay, tokens));
        int[] runs = runs(p, first, tokens); // (first cell, tokens) pairs in position order
        long src = lay.dataStart(t);
        long o = 0;
        for (KvStateLayout.Layer l : lay.layers()) {
            src += KvStateLayout.LAYER_HEADER_BYTES;
            o = copyRows(state, src, l.kRowBytes(), runs, dst, o);
            src += l.kRowBytes() * t;
        }
        for (KvStateLayout.Layer l : lay.layers()) {
            src += KvStateLayout.LAYER_HEADER_BYTES;
            if (!lay.vTrans()) {
                o = copyRows(state, src, l.vRowBytes(), runs, dst, o);
            } else {
                long channel = (long) l.vElBytes() * t;
                for (int j = 0; j < l.vEmbd(); j++) o = copyRows(state, src + j * channel, l.vElBytes(), runs, dst, o);
            }
            src += l.vRowBytes() * t;
        }
    }

    /** Rows {@code runs} (pairs: first cell, count) of {@code rowBytes} each from {@code base}, appended at {@code o}. */
    private static long copyRows(MemorySegment state, long base, long rowBytes, int[] runs, MemorySegment dst, long o) {
        for (int i = 0; i < runs.length; i += 2) {
            long len = rowBytes * runs[i + 1];
            MemorySegment.copy(state, base + runs[i] * rowBytes, dst, o, len);
            o += len;
        }
        return o;
    }

    /** Positions {@code [first, first+n)} as runs of consecutive cells: (first cell, length) pairs. */
    private static int[] runs(Parsed p, int first, int n) {
        if (p.cellOfPos() == null) return new int[] {first, n};
        int[] out = new int[2 * n];
        int k = 0;
        for (int i = 0; i < n; ) {
            int c = p.cell(first + i), len = 1;
            while (i + len < n && p.cell(first + i + len) == c + len) len++;
            out[k++] = c;
            out[k++] = len;
            i += len;
        }
        return java.util.Arrays.copyOf(out, k);
    }

    /** A state of the first {@code blocks.size()} blocks (positions 0…n·B-1), in a new segment from {@code alloc}. */
    public static MemorySegment assemble(
            KvStateLayout layout, int blockTokens, List<MemorySegment> blocks, SegmentAllocator alloc) {
        return assemble(layout, blockTokens, blocks, 0, alloc);
    }

    /**
     * A state of {@code blocks} at positions {@code firstPos…firstPos+n·B-1} (the blocks that follow a prefix the
     * sequence already holds), in a new segment from {@code alloc}.
     */
    public static MemorySegment assemble(
            KvStateLayout layout, int blockTokens, List<MemorySegment> blocks, int firstPos, SegmentAllocator alloc) {
        int tokens = Math.multiplyExact(blocks.size(), blockTokens);
        MemorySegment dst = alloc.allocate(layout.stateBytes(tokens), 16);
        assemble(layout, blockTokens, blocks, firstPos, dst);
        return dst;
    }

    /** Writes the state of {@code blocks} into {@code dst}, which holds {@link KvStateLayout#stateBytes} bytes. */
    public static void assemble(KvStateLayout layout, int blockTokens, List<MemorySegment> blocks, MemorySegment dst) {
        assemble(layout, blockTokens, blocks, 0, dst);
    }

    /** Writes the state of {@code blocks} at positions from {@code firstPos} into {@code dst}. */
    public static void assemble(
            KvStateLayout layout, int blockTokens, List<MemorySegment> blocks, int firstPos, MemorySegment dst) {
        assemble(layout, blockTokens, blocks, blockTokens, firstPos, dst);
    }

    /** Tokens of a run of {@code blocks} blocks of {@code blockTokens} whose last has {@code lastTokens}. */
    public static int runTokens(int blocks, int blockTokens, int lastTokens) {
        return blocks == 0 ? 0 : Math.addExact(Math.multiplyExact(blocks - 1, blockTokens), lastTokens);
    }

    /**
     * Writes the state of {@code blocks} at positions from {@code firstPos} into {@code dst} (which holds
     * {@link KvStateLayout#stateBytes} of their tokens), the last block of {@code lastTokens} tokens (a prompt's
     * shorter tail, as {@link #copyTokens} copies it), every other of {@code blockTokens}.
     */
    public static void assemble(
            KvStateLayout layout,
            int blockTokens,
            List<MemorySegment> blocks,
            int lastTokens,
            int firstPos,
            MemorySegment dst) {
        if (firstPos < 0) throw new IllegalArgumentException("first position " + firstPos);
        int n = blocks.size();
        if (n == 0) throw new IllegalArgumentException("no blocks to assemble");
        if (lastTokens < 1 || lastTokens > blockTokens)
            throw new IllegalArgumentException(
                    "a last block of " + lastTokens + " tokens (blocks of " + blockTokens + ")");
        int t = runTokens(n, blockTokens, lastTokens);
        long need = layout.stateBytes(t);
        if (dst.byteSize() < need)
            throw new IllegalArgumentException("state buffer of " + dst.byteSize() + " bytes, needs " + need);
        int[] tok = new int[n];
        for (int b = 0; b < n; b++) {
            tok[b] = b == n - 1 ? lastTokens : blockTokens;
            long want = blockBytes(layout, tok[b]);
            if (blocks.get(b).byteSize() != want)
                throw new IllegalArgumentException("block " + b + " has "
                        + blocks.get(b).byteSize() + " bytes, a block of " + tok[b] + " tokens has " + want);
        }
        long o = writeHead(layout, t, firstPos, dst);
        dst.set(I32, o, layout.vTrans() ? 1 : 0);
        o += 4;
        dst.set(I32, o, layout.layers().size());
        o += 4;
        long[] in = new long
                [n]; // offset of the current layer's section inside each block (a shorter last block's are its own)
        for (KvStateLayout.Layer l : layout.layers()) {
            dst.set(I32, o, l.kType());
            dst.set(I64, o + 4, l.kRowBytes());
            o += KvStateLayout.LAYER_HEADER_BYTES;
            for (int b = 0; b < n; b++) {
                long len = l.kRowBytes() * tok[b];
                MemorySegment.copy(blocks.get(b), in[b], dst, o, len);
                o += len;
                in[b] += len;
            }
        }
        for (KvStateLayout.Layer l : layout.layers()) {
            dst.set(I32, o, l.vType());
            if (!layout.vTrans()) {
                dst.set(I64, o + 4, l.vRowBytes());
                o += KvStateLayout.LAYER_HEADER_BYTES;
                for (int b = 0; b < n; b++) {
                    long len = l.vRowBytes() * tok[b];
                    MemorySegment.copy(blocks.get(b), in[b], dst, o, len);
                    o += len;
                    in[b] += len;
                }
            } else {
                dst.set(I32, o + 4, l.vElBytes());
                dst.set(I32, o + 8, l.vEmbd());
                o += KvStateLayout.LAYER_HEADER_BYTES;
                for (int j = 0; j < l.vEmbd(); j++) {
                    for (int b = 0; b < n; b++) {
                        long run = (long) l.vElBytes() * tok[b];
                        MemorySegment.copy(blocks.get(b), in[b] + j * run, dst, o, run);
                        o += run;
                    }
                }
                for (int b = 0; b < n; b++) in[b] += (long) l.vElBytes() * tok[b] * l.vEmbd();
            }
        }
        o = writeTail(layout, dst, o);
        if (o != need) throw new IllegalStateException("assembled " + o + " bytes, the layout says " + need);
    }

    /**
     * Completes the state of positions {@code 0…tokens-1} in {@code dst} whose KV part (as llama.cpp wrote it for
     * the same layout: {@link KvStateLayout#kvPartBytes} at {@link KvStateLayout#kvPartOffset}) is in place: writes
     * the header and cell metadata before it and the other streams' counts after it; returns the state's slice.
     */
    public static MemorySegment frame(KvStateLayout layout, int tokens, MemorySegment dst) {
        if (tokens < 1) throw new IllegalArgumentException("a state of " + tokens + " tokens");
        long need = layout.stateBytes(tokens);
        if (dst.byteSize() < need)
            throw new IllegalArgumentException("state buffer of " + dst.byteSize() + " bytes, needs " + need);
        long o = writeHead(layout, tokens, 0, dst);
        if (o != layout.kvPartOffset(tokens)) throw new IllegalStateException("state header of " + o + " bytes");
        o = writeTail(layout, dst, o + layout.kvPartBytes(tokens));
        if (o != need) throw new IllegalStateException("framed " + o + " bytes, the layout says " + need);
        return dst.asSlice(0, need);
    }

    /** The state's header and cell metadata (positions from {@code firstPos}) for {@code t} tokens; the offset after. */
    private static long writeHead(KvStateLayout layout, int t, int firstPos, MemorySegment dst) {
        long o = 0;
        dst.set(I32, o, KvStateLayout.MAGIC);
        o += 4;
        dst.set(I32, o, layout.seqId());
        o += 4;
        dst.set(I32, o, layout.nStream());
        o += 4;
        for (int s = 0; s < layout.stream(); s++) {
            dst.set(I32, o, 0);
            o += 4;
        }
        dst.set(I32, o, t);
        o += 4;
        for (int i = 0; i < t; i++) {
            dst.set(I32, o, firstPos + i);
            dst.set(I32, o + 4, 1);
            dst.set(I32, o + 8, layout.seqId());
            o += KvStateLayout.META_BYTES_PER_TOKEN;
        }
        return o;
    }

    /** The counts of the streams after the sequence's (none of its cells) from {@code o}; the offset after. */
    private static long writeTail(KvStateLayout layout, MemorySegment dst, long o) {
        for (int s = layout.stream() + 1; s < layout.nStream(); s++) {
            dst.set(I32, o, 0);
            o += 4;
        }
        return o;
    }

    private static IllegalArgumentException bad(String why) {
        return new IllegalArgumentException("KV state refused: " + why);
    }

    /** A bounds-checked little-endian cursor. */
    private static final class Reader {
        private final MemorySegment s;
        private long pos;

        Reader(MemorySegment s) {
            this.s = s;
        }

        int i32() {
            need(4);
            int v = s.get(I32, pos);
            pos += 4;
            return v;
        }

        long i64() {
            need(8);
            long v = s.get(I64, pos);
            pos += 8;
            return v;
        }

        void skip(long n) {
            need(n);
            pos += n;
        }

        long position() {
            return pos;
        }

        private void need(long n) {
            if (n < 0 || pos + n > s.byteSize()) throw bad("truncated at byte " + pos + " of " + s.byteSize());
        }
    }
}
