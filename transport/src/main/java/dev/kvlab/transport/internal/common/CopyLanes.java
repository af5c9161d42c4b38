package dev.kvlab.transport.internal.common;

import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransferStatus;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A few worker threads that move the slices of submitted batches with memory copies (the data path of the
 * {@code local}, {@code shm} and {@code rdma-emu} transports). Workers take slices one at a time from the
 * oldest batch, so the slices of a large request travel in parallel on all lanes. Idle workers wait on a
 * condition; they never spin.
 */
public final class CopyLanes implements AutoCloseable {

    /** What a lane does with one slice, and what happens when a batch's last slice is done. */
    public interface SliceMover {
        /** Moves one slice; returns null on success or the request's failure status. May throw TransferException. */
        TransferStatus move(BatchProgress p, int request, long offsetInRequest, int length);

        /** Called once, by the thread that finished the batch's last slice. */
        void lastSliceDone(BatchProgress p);
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final ArrayDeque<BatchProgress> queue = new ArrayDeque<>();
    private final Thread[] workers;
    private final SliceMover mover;
    private int idle;
    private volatile boolean closed;

    public CopyLanes(String name, int lanes, SliceMover mover) {
        if (lanes < 1) throw new IllegalArgumentException("lanes must be >= 1");
        this.mover = mover;
        this.workers = new Thread[lanes];
        for (int i = 0; i < lanes; i++) {
            workers[i] = Thread.ofPlatform().daemon().name(name + "-lane-" + i).unstarted(this::run);
            workers[i].start();
        }
    }

    public int lanes() {
        return workers.length;
    }

    /** Queues a batch; its slices are moved by the lanes. */
    public void submit(BatchProgress p) {
        lock.lock();
        try {
            if (closed) throw new TransferException("transfer engine is closed");
            queue.addLast(p);
            if (idle > 0) {
                if (p.totalSlices() > 1 && idle > 1) work.signalAll();
                else work.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves every slice of {@code p} on the calling thread (for batches too small to be worth a hand-off).
     * Returns true when the caller's thread finished the batch's last slice.
     */
    public boolean runInline(BatchProgress p) {
        boolean last = false;
        while (p.nextSlice()) {
            last = moveOne(p, p.sliceRequest, p.sliceOffset, p.sliceLength);
        }
        return last;
    }

    private void run() {
        while (true) {
            BatchProgress p;
            int req;
            long off;
            int len;
            lock.lock();
            try {
                while (queue.isEmpty() && !closed) {
                    idle++;
                    try {
                        work.awaitUninterruptibly();
                    } finally {
                        idle--;
                    }
                }
                if (closed) return;
                p = queue.peekFirst();
                if (p.isDone() || !p.nextSlice()) {
                    queue.pollFirst();
                    continue;
                }
                req = p.sliceRequest;
                off = p.sliceOffset;
                len = p.sliceLength;
                if (p.fullyIssued()) queue.pollFirst();
            } finally {
                lock.unlock();
            }
            moveOne(p, req, off, len);
        }
    }

    private boolean moveOne(BatchProgress p, int req, long off, int len) {
        TransferStatus error;
        TransferException fatal = null;
        if (!p.beginCopy()) {
            error = TransferStatus.FAILED;
        } else {
            try {
                error = mover.move(p, req, off, len);
            } catch (TransferException e) {
                error = TransferStatus.FAILED;
                fatal = e;
            } catch (RuntimeException
                    | InternalError e) { // InternalError: a fault in a mapped file (truncated by its owner)
                error = TransferStatus.FAILED;
            } finally {
                p.endCopy();
            }
        }
        if (fatal != null) p.fail(TransferStatus.FAILED, fatal);
        if (p.sliceDone(req, error)) {
            mover.lastSliceDone(p);
            return true;
        }
        return false;
    }

    /** Stops the workers; batches still queued are failed. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            work.signalAll();
            for (BatchProgress p : queue)
                p.fail(TransferStatus.FAILED, new TransferException("transfer engine closed"));
            queue.clear();
        } finally {
            lock.unlock();
        }
    }
}
