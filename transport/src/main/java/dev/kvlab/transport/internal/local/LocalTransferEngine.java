package dev.kvlab.transport.internal.local;

import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransferStatus;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.internal.common.BatchProgress;
import dev.kvlab.transport.internal.common.CopyLanes;
import dev.kvlab.transport.internal.common.Deadlines;
import dev.kvlab.transport.internal.common.Lanes;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The in-process transport: each slice is one {@code MemorySegment.copy} between the initiator's buffer and a
 * segment registered by an engine of the same JVM. Batches no larger than one slice are copied on the
 * submitting thread (a hand-off would cost more than the copy); larger ones are sliced across copy lanes.
 */
final class LocalTransferEngine implements TransferEngine, CopyLanes.SliceMover {

    private final String id = "e" + UUID.randomUUID().toString().substring(0, 8);
    private final TransportConfig config;
    private final List<LocalSegment> segments = new CopyOnWriteArrayList<>();
    private final Arena buffers = Arena.ofShared();
    private final CopyLanes lanes;
    private final Deadlines deadlines;
    private volatile boolean closed;

    LocalTransferEngine(TransportConfig config) {
        this.config = config;
        this.lanes = new CopyLanes("kvlab-local-" + id, Lanes.forCopies(config), this);
        this.deadlines = new Deadlines("kvlab-local-" + id, config.timeout(), null);
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public boolean emulated() {
        return false;
    }

    @Override
    public String copySemantics() {
        return "one CPU memory copy between the initiator's buffer and the target segment, in process" + " (slices on "
                + lanes.lanes() + " copy lanes; batches up to one slice on the submitting thread)";
    }

    @Override
    public Segment registerSegment(String name, long bytes) {
        ensureOpen();
        if (bytes <= 0) throw new IllegalArgumentException("segment size must be > 0, got " + bytes);
        LocalSegment s = new LocalSegment(id, name, bytes);
        segments.add(s);
        return s;
    }

    @Override
    public MemorySegment allocateBuffer(long bytes) {
        ensureOpen();
        return buffers.allocate(bytes, 4096);
    }

    @Override
    public RemoteSegment openSegment(SegmentHandle handle) {
        ensureOpen();
        if (!"local".equals(handle.transport()))
            throw new IllegalArgumentException(
                    "not a local segment: " + handle + " (the local transport opens local:// handles)");
        LocalSegment s = LocalDirectory.JVM.find(handle.address() + "/" + handle.segment());
        if (s == null || !s.isOpen()) throw new TransferException("no local segment " + handle + " in this process");
        return new Remote(handle, s);
    }

    @Override
    public CompletableFuture<TransferBatch> submit(TransferBatch batch) {
        ensureOpen();
        for (int i = 0; i < batch.size(); i++) {
            if (!(batch.target(i) instanceof Remote))
                throw new IllegalArgumentException("request " + i + " targets "
                        + batch.target(i).handle() + ", which this local engine did not open");
        }
        BatchProgress p =
                new BatchProgress(batch, config.sliceSize(), config.timeout().toNanos());
        if (p.totalSlices() == 0) {
            p.complete();
        } else if (batch.totalBytes() <= config.sliceSize()) {
            lanes.runInline(p);
        } else {
            deadlines.add(p);
            lanes.submit(p);
        }
        return p.future;
    }

    @Override
    public TransferStatus move(BatchProgress p, int request, long offsetInRequest, int length) {
        TransferBatch b = p.batch;
        LocalSegment s = ((Remote) b.target(request)).target;
        if (!s.isOpen()) throw new TransferException("local segment " + s.handle() + " was closed");
        long local = b.localOffset(request) + offsetInRequest;
        long remote = b.targetOffset(request) + offsetInRequest;
        if (remote + length > s.memory().byteSize()) return TransferStatus.OUT_OF_BOUNDS;
        try {
            if (b.op(request) == Opcode.READ) MemorySegment.copy(s.memory(), remote, b.local(request), local, length);
            else MemorySegment.copy(b.local(request), local, s.memory(), remote, length);
        } catch (IllegalStateException e) { // the segment's memory was freed under the copy
            throw new TransferException("local segment " + s.handle() + " was closed during the batch", e);
        }
        return null;
    }

    @Override
    public void lastSliceDone(BatchProgress p) {
        deadlines.remove(p);
        p.complete();
    }

    private void ensureOpen() {
        if (closed) throw new IllegalStateException("the local transfer engine is closed");
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        lanes.close();
        deadlines.close();
        for (BatchProgress p : deadlines.drain())
            p.fail(TransferStatus.FAILED, new TransferException("transfer engine closed"));
        for (LocalSegment s : segments) s.close();
        segments.clear();
        buffers.close();
    }

    private record Remote(SegmentHandle handle, LocalSegment target) implements RemoteSegment {
        @Override
        public long size() {
            return target.size();
        }

        @Override
        public void close() {}
    }
}
