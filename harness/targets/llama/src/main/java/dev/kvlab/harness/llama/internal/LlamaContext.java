package dev.kvlab.harness.llama.internal;

import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.util.Objects;

/**
 * A llama.cpp context ({@code llama_init_from_model}) on a model: its KV memory holds up to {@code nSeqMax}
 * sequences. Decodes batches, reads logits, removes and clears KV cells, and takes a sequence's KV state out as
 * bytes and puts it back ({@code llama_state_seq_*}). Not thread-safe: one thread uses a context at a time.
 */
public final class LlamaContext implements AutoCloseable {

    /** {@code llama_flash_attn_type}: with flash attention off, llama.cpp keeps V transposed. */
    public enum FlashAttention {
        AUTO(-1),
        DISABLED(0),
        ENABLED(1);

        final int code;

        FlashAttention(int code) {
            this.code = code;
        }
    }

    /**
     * What a context is created with; everything else is llama.cpp's default (f16 K and V).
     *
     * @param nCtx KV cells (tokens) in all: split evenly among the sequences, or (unified) shared by them
     * @param nBatch the most tokens one {@link #decode} takes (also its micro-batch, {@code n_ubatch})
     * @param nSeqMax the most sequences (at most {@link #MAX_SEQ})
     * @param threads threads for decode and for batch prefill (one per context on a shared machine)
     * @param flashAttention flash attention (default: llama.cpp decides, on for the CPU)
     * @param unified one KV stream for all sequences ({@code kv_unified}): a cell may belong to several sequences, so
     *                {@link #copySeq} shares cells without copying them; else a stream per sequence
     */
    public record Options(
            int nCtx, int nBatch, int nSeqMax, int threads, FlashAttention flashAttention, boolean unified) {
        public Options {
            if (nCtx < 1 || nBatch < 1 || nSeqMax < 1 || threads < 1)
                throw new IllegalArgumentException(
                        "context options must be positive: " + nCtx + "/" + nBatch + "/" + nSeqMax + "/" + threads);
            if (nSeqMax > MAX_SEQ)
                throw new IllegalArgumentException("n_seq_max " + nSeqMax + " > llama.cpp's LLAMA_MAX_SEQ " + MAX_SEQ);
            Objects.requireNonNull(flashAttention, "flashAttention");
        }

        /** A stream per sequence. */
        public Options(int nCtx, int nBatch, int nSeqMax, int threads, FlashAttention flashAttention) {
            this(nCtx, nBatch, nSeqMax, threads, flashAttention, false);
        }

        /** {@code nCtx} cells, batches of up to 512 tokens, one sequence, one thread, flash attention auto. */
        public static Options of(int nCtx) {
            return new Options(nCtx, Math.min(nCtx, 512), 1, 1, FlashAttention.AUTO);
        }

        public Options withSeqMax(int n) {
            return new Options(nCtx, nBatch, n, threads, flashAttention, unified);
        }

        public Options withFlashAttention(FlashAttention f) {
            return new Options(nCtx, nBatch, nSeqMax, threads, f, unified);
        }

        public Options withUnified(boolean u) {
            return new Options(nCtx, nBatch, nSeqMax, threads, flashAttention, u);
        }
    }

    /** llama.cpp's {@code LLAMA_MAX_SEQ} in the pinned release ({@code src/llama-cparams.h}). */
    public static final int MAX_SEQ = 256;

    private final LlamaLibrary lib;
    private final LlamaModel model;
    private final Options options;
    private final int vocabSize;
    private MemorySegment ctx;
    private final MemorySegment memory;

    private LlamaContext(LlamaModel model, Options options, MemorySegment ctx) throws Throwable {
        this.lib = model.library();
        this.model = model;
        this.options = options;
        this.ctx = ctx;
        this.vocabSize = model.vocabSize();
        this.memory = (MemorySegment) lib.getMemory.invoke(ctx);
    }

    static LlamaContext create(LlamaModel model, Options o) {
        LlamaLibrary lib = model.library();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = (MemorySegment) lib.contextDefaultParams.invoke((SegmentAllocator) a);
            p.set(JAVA_INT, LlamaLibrary.off(LlamaAbi.CONTEXT_PARAMS, "n_ctx"), o.nCtx());
            p.set(JAVA_INT, LlamaLibrary.off(LlamaAbi.CONTEXT_PARAMS, "n_batch"), o.nBatch());
            p.set(JAVA_INT, LlamaLibrary.off(LlamaAbi.CONTEXT_PARAMS, "n_ubatch"), o.nBatch());
            p.set(JAVA_INT, LlamaLibrary.off(LlamaAbi.CONTEXT_PARAMS, "n_seq_max"), o.nSeqMax());
            p.set(JAVA_INT, LlamaLibrary.off(LlamaAbi.CONTEXT_PARAMS, "n_threads"), o.threads());
            p.set(JAVA_INT, LlamaLibrary.off(LlamaAbi.CONTEXT_PARAMS, "n_threads_batch"), o.threads());
            p.set(JAVA_INT, LlamaLibrary.off(LlamaAbi.CONTEXT_PARAMS, "flash_attn_type"), o.flashAttention().code);
            p.set(JAVA_BOOLEAN, LlamaLibrary.off(LlamaAbi.CONTEXT_PARAMS, "kv_unified"), o.unified());
            MemorySegment c = (MemorySegment) lib.initFromModel.invoke(model.handle(), p);
            if (c.address() == 0)
                throw new IllegalStateException("llama.cpp cannot create a context (" + o + ") on " + model.file()
                        + (lib.lastError().isEmpty() ? "" : ": " + lib.lastError()));
            return new LlamaContext(model, o, c);
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
    }

    public LlamaModel model() {
        return model;
    }

    public Options options() {
        return options;
    }

    /** A batch sized for this context: up to {@code n_batch} tokens of up to {@code n_seq_max} sequences. */
    public LlamaBatch newBatch() {
        return new LlamaBatch(lib, options.nBatch(), options.nSeqMax());
    }

    /** {@code llama_decode}: runs the batch through the model, adding its tokens to the KV memory. */
    public void decode(LlamaBatch batch) {
        int rc;
        try {
            rc = (int) lib.decode.invoke(live(), batch.struct());
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
        if (rc != 0)
            throw new IllegalStateException(
                    "llama_decode returned " + rc + (rc == 1 ? " (no KV slot for the batch)" : "")
                            + (lib.lastError().isEmpty() ? "" : ": " + lib.lastError()));
    }

    /** The logits (one per vocabulary entry) of the batch token at {@code index}, which asked for them. */
    public float[] logits(int index) {
        try {
            MemorySegment p = (MemorySegment) lib.getLogitsIth.invoke(live(), index);
            if (p.address() == 0) throw new IllegalStateException("no logits for batch index " + index);
            return p.reinterpret(4L * vocabSize).toArray(JAVA_FLOAT);
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
    }

    /**
     * The greedy choice from the logits of the batch token at {@code index}, read where llama.cpp keeps them (no
     * copy): the index of the largest (the lowest on ties), as {@link #argmax} of {@link #logits} gives.
     */
    public int argmaxAt(int index) {
        try {
            MemorySegment p = (MemorySegment) lib.getLogitsIth.invoke(live(), index);
            if (p.address() == 0) throw new IllegalStateException("no logits for batch index " + index);
            MemorySegment l = p.reinterpret(4L * vocabSize);
            int best = 0;
            float bv = l.getAtIndex(JAVA_FLOAT, 0);
            for (int i = 1; i < vocabSize; i++) {
                float v = l.getAtIndex(JAVA_FLOAT, i);
                if (v > bv) {
                    bv = v;
                    best = i;
                }
            }
            return best;
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
    }

    /**
     * Prefills {@code tokens[from, to)} of sequence {@code seq} at positions {@code startPos…} in batches of
     * {@code n_batch}; returns the logits after the last token.
     */
    public float[] prefill(int seq, int[] tokens, int from, int to, int startPos) {
        if (to <= from) throw new IllegalArgumentException("nothing to prefill");
        try (LlamaBatch b = newBatch()) {
            int last = -1;
            for (int i = from; i < to; i++) {
                last = b.add(tokens[i], startPos + i - from, seq, i == to - 1);
                if (b.isFull() || i == to - 1) {
                    decode(b);
                    if (i < to - 1) b.clear();
                }
            }
            return logits(last);
        }
    }

    /** Greedy decoding: {@code n} tokens of sequence {@code seq} from {@code logits}, the next at {@code pos}. */
    public int[] greedy(int seq, float[] logits, int pos, int n) {
        int[] out = new int[n];
        try (LlamaBatch b = newBatch()) {
            float[] l = logits;
            for (int i = 0; i < n; i++) {
                out[i] = argmax(l);
                if (i == n - 1) break;
                b.clear();
                int idx = b.add(out[i], pos + i, seq, true);
                decode(b);
                l = logits(idx);
            }
        }
        return out;
    }

    /** The index of the largest value (the lowest index on ties). */
    public static int argmax(float[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
        return best;
    }

    /** {@code llama_memory_clear}: empties the KV memory (metadata and data). */
    public void clear() {
        try {
            lib.memoryClear.invoke(memory(), true);
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
    }

    /** {@code llama_memory_seq_rm}: removes positions {@code [p0, p1)} of {@code seq} (-1: all, to the end). */
    public boolean removeSeq(int seq, int p0, int p1) {
        try {
            return (boolean) lib.memorySeqRm.invoke(memory(), seq, p0, p1);
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
    }

    /**
     * {@code llama_memory_seq_cp}: the cells of {@code src} at positions {@code [p0, p1)} (-1: all, to the end) also
     * become {@code dst}'s. In a unified context the cells are shared, not copied (their data stays where it is);
     * across streams llama.cpp copies only whole streams, so this is for unified contexts.
     */
    public void copySeq(int src, int dst, int p0, int p1) {
        if (!options.unified()) throw new IllegalStateException("copySeq shares cells only in a unified context");
        try {
            lib.memorySeqCp.invoke(memory(), src, dst, p0, p1);
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
    }

    /** The largest position {@code seq} holds, -1 when empty. */
    public int maxPos(int seq) {
        try {
            return (int) lib.memorySeqPosMax.invoke(memory(), seq);
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
    }

    /** {@code llama_state_seq_get_size}: bytes of {@code seq}'s state. */
    public long stateSize(int seq) {
        try {
            return (long) lib.stateSeqGetSize.invoke(live(), seq);
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
    }

    /**
     * {@code llama_state_seq_get_data} into {@code dst} (a native segment): the bytes written at its start, 0 when
     * the state does not fit (llama.cpp writes nothing usable then).
     */
    public long stateInto(int seq, MemorySegment dst) {
        try {
            return (long) lib.stateSeqGetData.invoke(live(), dst, dst.byteSize(), seq);
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
    }

    /** {@code llama_state_seq_get_data}: {@code seq}'s KV state, in a segment from {@code alloc}. */
    public MemorySegment state(int seq, SegmentAllocator alloc) {
        long size = stateSize(seq);
        MemorySegment dst = alloc.allocate(size, 16);
        long n = stateInto(seq, dst);
        if (n != size)
            throw new IllegalStateException("llama_state_seq_get_data wrote " + n + " of " + size + " bytes");
        return dst;
    }

    /**
     * {@code llama_state_seq_set_data}: replaces {@code seq}'s KV with {@code state} (a native segment); refused
     * (exception, the sequence left empty) when llama.cpp cannot read it.
     */
    public void restore(int seq, MemorySegment state) {
        MemorySegment src = state;
        Arena copy = null;
        if (!state.isNative()) {
            copy = Arena.ofConfined();
            src = copy.allocate(state.byteSize(), 16);
            MemorySegment.copy(state, 0, src, 0, state.byteSize());
        }
        try {
            long n = (long) lib.stateSeqSetData.invoke(live(), src, src.byteSize(), seq);
            if (n == 0)
                throw new IllegalStateException("llama_state_seq_set_data refused the state of " + state.byteSize()
                        + " bytes" + (lib.lastError().isEmpty() ? "" : ": " + lib.lastError()));
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        } finally {
            if (copy != null) copy.close();
        }
    }

    /**
     * The whole context's state ({@code llama_state_get_data}: every sequence's KV cells, which sequences share each
     * cell, and the last logits), in a segment from {@code alloc}: a snapshot {@link #restoreAll} puts back.
     */
    public MemorySegment stateAll(SegmentAllocator alloc) {
        try {
            long size = (long) lib.stateGetSize.invoke(live());
            MemorySegment dst = alloc.allocate(size, 16);
            long n = (long) lib.stateGetData.invoke(live(), dst, size);
            if (n != size)
                throw new IllegalStateException("llama_state_get_data wrote " + n + " of " + size + " bytes");
            return dst;
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
    }

    /** {@code llama_state_set_data}: the whole context as {@link #stateAll} took it (a native segment); refused with an exception. */
    public void restoreAll(MemorySegment state) {
        try {
            long n = (long) lib.stateSetData.invoke(live(), state, state.byteSize());
            if (n != state.byteSize())
                throw new IllegalStateException("llama_state_set_data read " + n + " of " + state.byteSize() + " bytes"
                        + (lib.lastError().isEmpty() ? "" : ": " + lib.lastError()));
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        }
    }

    /** The KV state of {@code seq} as a byte array (a copy). */
    public byte[] stateBytes(int seq) {
        try (Arena a = Arena.ofConfined()) {
            return state(seq, a).toArray(JAVA_BYTE);
        }
    }

    private MemorySegment memory() {
        live();
        return memory;
    }

    private MemorySegment live() {
        if (ctx == null) throw new IllegalStateException("context is closed");
        return ctx;
    }

    @Override
    public void close() {
        if (ctx == null) return;
        try {
            lib.free.invoke(ctx);
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        } finally {
            ctx = null;
        }
    }
}
