package dev.kvlab.transport.internal.common;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A reusable {@link ByteBuffer} window onto off-heap memory, so that socket I/O reads into and writes from a
 * {@link MemorySegment} directly, without staging copies and without allocating a buffer per transfer. One
 * instance serves one in-flight I/O at a time. The window is rebuilt (one allocation) only when a request
 * falls outside the memory it currently covers, e.g. a different buffer; slices of the same buffer reuse it.
 */
public final class BufferView {

    /** Windows start at multiples of this and cover up to {@link #WINDOW_MAX}, so any range up to 1 GiB - 1 MiB fits one. */
    private static final long WINDOW_STEP = 1L << 30;

    private static final long WINDOW_MAX = (1L << 31) - (1L << 20);

    private MemorySegment.Scope scope;
    private long windowAddress;
    private long windowLength;
    private ByteBuffer window;

    /** A buffer over {@code [offset, offset + length)} of {@code segment}, position and limit set to that range. */
    public ByteBuffer of(MemorySegment segment, long offset, int length) {
        if (!segment.isNative())
            return segment.asSlice(offset, length).asByteBuffer(); // heap: the JDK stages it anyway
        long address = segment.address() + offset;
        if (window == null
                || scope != segment.scope()
                || address < windowAddress
                || address + length > windowAddress + windowLength
                || (window.isReadOnly() && !segment.isReadOnly())) {
            long start = (offset / WINDOW_STEP) * WINDOW_STEP;
            long len = Math.min(segment.byteSize() - start, WINDOW_MAX);
            window = segment.asSlice(start, len).asByteBuffer();
            scope = segment.scope();
            windowAddress = segment.address() + start;
            windowLength = len;
        }
        int pos = (int) (address - windowAddress);
        window.limit(pos + length).position(pos);
        return window;
    }

    /** Forgets the window (drops the reference to the memory). */
    public void clear() {
        window = null;
        scope = null;
    }
}
