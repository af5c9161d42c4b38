package dev.kvlab.harness.llama.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

/**
 * A {@code llama_batch} from {@code llama_batch_init}: up to {@code capacity} tokens, each at a position in one
 * sequence, tokens of several sequences in one batch allowed. {@link #add} marks which tokens want logits; the
 * index of a token in the batch is the index for {@link LlamaContext#logits}.
 */
public final class LlamaBatch implements AutoCloseable {
    private final LlamaLibrary lib;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment struct;
    private final MemorySegment token, pos, nSeqId, seqId, logits;
    private final int capacity;
    private int size;
    private boolean closed;

    LlamaBatch(LlamaLibrary lib, int capacity, int seqMax) {
        this.lib = lib;
        this.capacity = capacity;
        try {
            struct = (MemorySegment) lib.batchInit.invoke((SegmentAllocator) arena, capacity, 0, seqMax);
        } catch (Throwable t) {
            arena.close();
            throw LlamaLibrary.rethrow(t);
        }
        token = ptr("token", JAVA_INT.byteSize() * capacity);
        pos = ptr("pos", JAVA_INT.byteSize() * capacity);
        nSeqId = ptr("n_seq_id", JAVA_INT.byteSize() * capacity);
        seqId = ptr("seq_id", ADDRESS.byteSize() * capacity);
        logits = ptr("logits", capacity);
    }

    private MemorySegment ptr(String field, long bytes) {
        return struct.get(ADDRESS, LlamaLibrary.off(LlamaAbi.BATCH, field)).reinterpret(bytes);
    }

    public int capacity() {
        return capacity;
    }

    public int size() {
        return size;
    }

    public boolean isFull() {
        return size == capacity;
    }

    /** Appends {@code tok} at position {@code p} of sequence {@code seq}; returns its index in the batch. */
    public int add(int tok, int p, int seq, boolean wantLogits) {
        if (size == capacity) throw new IllegalStateException("batch full (" + capacity + " tokens)");
        int i = size++;
        token.setAtIndex(JAVA_INT, i, tok);
        pos.setAtIndex(JAVA_INT, i, p);
        nSeqId.setAtIndex(JAVA_INT, i, 1);
        seqId.getAtIndex(ADDRESS, i).reinterpret(4).set(JAVA_INT, 0, seq);
        logits.set(JAVA_BYTE, i, (byte) (wantLogits ? 1 : 0));
        struct.set(JAVA_INT, 0, size);
        return i;
    }

    /** Empties the batch for reuse. */
    public void clear() {
        size = 0;
        struct.set(JAVA_INT, 0, 0);
    }

    MemorySegment struct() {
        return struct;
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        try {
            lib.batchFree.invoke(struct);
        } catch (Throwable t) {
            throw LlamaLibrary.rethrow(t);
        } finally {
            arena.close();
        }
    }
}
