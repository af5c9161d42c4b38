package dev.kvlab.transport.api;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * A reusable batch of READ/WRITE requests (Mooncake: a batch id with its transfer requests). Each request is
 * (opcode, local buffer + offset, target segment + offset, length). Build it with {@link #add}, hand it to
 * {@link TransferEngine#submit(TransferBatch)}, read the per-request {@link #status(int)} when the future
 * completes, then {@link #clear()} and reuse it: a batch allocates nothing per request.
 *
 * <p>A batch must not be modified or resubmitted while a submission of it is in flight.
 */
public final class TransferBatch {

    private final Opcode[] ops;
    private final MemorySegment[] locals;
    private final long[] localOffsets;
    private final RemoteSegment[] targets;
    private final long[] targetOffsets;
    private final long[] lengths;
    private final TransferStatus[] statuses;
    private int size;

    public TransferBatch(int capacity) {
        if (capacity <= 0) throw new IllegalArgumentException("batch capacity must be > 0, got " + capacity);
        ops = new Opcode[capacity];
        locals = new MemorySegment[capacity];
        localOffsets = new long[capacity];
        targets = new RemoteSegment[capacity];
        targetOffsets = new long[capacity];
        lengths = new long[capacity];
        statuses = new TransferStatus[capacity];
    }

    /**
     * Adds a request and returns its index. Bounds of the local buffer and of the target segment (as far as
     * its handle tells) are checked here, so that a bad request fails at once with a clear message.
     */
    public int add(
            Opcode op, MemorySegment local, long localOffset, RemoteSegment target, long targetOffset, long length) {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(target, "target");
        if (size == ops.length) throw new IllegalStateException("batch is full (capacity " + ops.length + ")");
        if (length < 0 || localOffset < 0 || targetOffset < 0)
            throw new IllegalArgumentException("negative offset or length: local offset " + localOffset
                    + ", target offset " + targetOffset + ", length " + length);
        if (localOffset + length > local.byteSize() || localOffset + length < 0)
            throw new IllegalArgumentException("request " + size + ": local range [" + localOffset + ", "
                    + (localOffset + length) + ") is outside the local buffer of " + local.byteSize() + " bytes");
        long targetSize = target.size();
        if (targetOffset + length > targetSize || targetOffset + length < 0)
            throw new IllegalArgumentException(
                    "request " + size + ": target range [" + targetOffset + ", " + (targetOffset + length)
                            + ") is outside segment " + target.handle().segment() + " of " + targetSize + " bytes");
        int i = size++;
        ops[i] = op;
        locals[i] = local;
        localOffsets[i] = localOffset;
        targets[i] = target;
        targetOffsets[i] = targetOffset;
        lengths[i] = length;
        statuses[i] = TransferStatus.PENDING;
        return i;
    }

    /** Adds a request moving the whole of {@code local}. */
    public int add(Opcode op, MemorySegment local, RemoteSegment target, long targetOffset) {
        return add(op, local, 0, target, targetOffset, local.byteSize());
    }

    public int size() {
        return size;
    }

    public int capacity() {
        return ops.length;
    }

    public Opcode op(int i) {
        check(i);
        return ops[i];
    }

    public MemorySegment local(int i) {
        check(i);
        return locals[i];
    }

    public long localOffset(int i) {
        check(i);
        return localOffsets[i];
    }

    public RemoteSegment target(int i) {
        check(i);
        return targets[i];
    }

    public long targetOffset(int i) {
        check(i);
        return targetOffsets[i];
    }

    public long length(int i) {
        check(i);
        return lengths[i];
    }

    public TransferStatus status(int i) {
        check(i);
        return statuses[i];
    }

    /** Sets the outcome of request {@code i}. For transport implementations. */
    public void status(int i, TransferStatus status) {
        check(i);
        statuses[i] = status;
    }

    /** True when every request finished {@link TransferStatus#OK}. */
    public boolean allOk() {
        for (int i = 0; i < size; i++) if (statuses[i] != TransferStatus.OK) return false;
        return true;
    }

    /** Sum of the request lengths. */
    public long totalBytes() {
        long t = 0;
        for (int i = 0; i < size; i++) t += lengths[i];
        return t;
    }

    /** Marks every request still {@link TransferStatus#PENDING} with {@code status}. For transport implementations. */
    public void failPending(TransferStatus status) {
        for (int i = 0; i < size; i++) if (statuses[i] == TransferStatus.PENDING) statuses[i] = status;
    }

    /** Empties the batch for reuse (drops references to buffers and segments). */
    public void clear() {
        Arrays.fill(locals, 0, size, null);
        Arrays.fill(targets, 0, size, null);
        size = 0;
    }

    private void check(int i) {
        if (i < 0 || i >= size) throw new IndexOutOfBoundsException("request " + i + " of a batch of " + size);
    }
}
