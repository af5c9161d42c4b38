package dev.kvlab.transport.internal.shm;

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
 * One-sided copies through shared-memory files: the initiator maps the owner's segment file and moves bytes
 * with its own CPU; the owner's threads take no part (the property RDMA gives). Slices of large requests are
 * copied on parallel lanes; a batch no larger than one slice is copied on the submitting thread. When the
 * batch's last slice is done the owner's liveness is checked once per target, so a batch that ran while the
 * owner died (or closed the segment) fails instead of pretending its bytes were served.
 *
 * <p>With a {@link NicPacer} (the {@code rdma-emu} transport) every slice also reserves time on a modelled
 * NIC at submission, and the batch completes when the model says its last byte and the per-operation latency
 * have passed (or when its copies are done, if later).
 */
public class ShmTransferEngine implements TransferEngine, CopyLanes.SliceMover {

    private final String name;
    private final String id = UUID.randomUUID().toString().substring(0, 8);
    protected final TransportConfig config;
    private final List<ShmSegment> segments = new CopyOnWriteArrayList<>();
    private final List<ShmMapping> mappings = new CopyOnWriteArrayList<>();
    private final Arena buffers = Arena.ofShared();
    private final CopyLanes lanes;
    private final Deadlines deadlines;
    private final NicPacer pacer;
    private volatile boolean closed;

    ShmTransferEngine(String name, TransportConfig config, NicPacer pacer) {
        this.name = name;
        this.config = config;
        this.pacer = pacer;
        ShmFiles.sweepOrphans(config.shmDirectory());
        this.lanes = new CopyLanes("kvlab-" + name + "-" + id, Lanes.forCopies(config), this);
        this.deadlines = new Deadlines("kvlab-" + name + "-" + id, config.timeout(), null);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean emulated() {
        return pacer != null;
    }

    @Override
    public String copySemantics() {
        String base = "one CPU memory copy by the initiator between its buffer and the target's shared-memory mapping"
                + " (one-sided: the owner's CPU takes no part; " + lanes.lanes() + " copy lanes)";
        return pacer == null
                ? base
                : base + "; completion timed by an emulated NIC model " + pacer.link() + " (emulated)";
    }

    @Override
    public Segment registerSegment(String segmentName, long bytes) {
        ensureOpen();
        ShmSegment s = new ShmSegment(name, config.shmDirectory(), id, segmentName, bytes);
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
        if (!name.equals(handle.transport()))
            throw new IllegalArgumentException("not a " + name + " segment: " + handle + " (the " + name
                    + " transport opens " + name + ":// handles)");
        ShmMapping m = ShmMapping.open(handle, config.shmDirectory());
        mappings.add(m);
        return m;
    }

    @Override
    public CompletableFuture<TransferBatch> submit(TransferBatch batch) {
        ensureOpen();
        for (int i = 0; i < batch.size(); i++) {
            if (!(batch.target(i) instanceof ShmMapping))
                throw new IllegalArgumentException("request " + i + " targets "
                        + batch.target(i).handle() + ", which this " + name + " engine did not open");
        }
        BatchProgress p =
                new BatchProgress(batch, config.sliceSize(), config.timeout().toNanos());
        if (p.totalSlices() == 0) {
            lastSliceDone(p);
        } else if (pacer == null && batch.totalBytes() <= config.sliceSize()) {
            lanes.runInline(p);
        } else {
            if (pacer != null) p.raiseEngineNanos(pacer.reserve(batch, config.sliceSize()));
            deadlines.add(p);
            lanes.submit(p);
        }
        return p.future;
    }

    @Override
    public TransferStatus move(BatchProgress p, int request, long offsetInRequest, int length) {
        TransferBatch b = p.batch;
        ShmMapping m = (ShmMapping) b.target(request);
        MemorySegment remote = m.memory();
        long local = b.localOffset(request) + offsetInRequest;
        long at = b.targetOffset(request) + offsetInRequest;
        if (at + length > remote.byteSize()) return TransferStatus.OUT_OF_BOUNDS;
        try {
            if (b.op(request) == Opcode.READ) MemorySegment.copy(remote, at, b.local(request), local, length);
            else MemorySegment.copy(b.local(request), local, remote, at, length);
        } catch (IllegalStateException e) {
            throw new TransferException(name + " segment " + m.handle() + " was closed during the batch", e);
        }
        return null;
    }

    @Override
    public void lastSliceDone(BatchProgress p) {
        RemoteSegment last = null;
        TransferBatch b = p.batch;
        for (int i = 0; i < b.size(); i++) {
            RemoteSegment t = b.target(i);
            if (t == last) continue;
            last = t;
            if (!((ShmMapping) t).ownerAlive()) {
                deadlines.remove(p);
                p.fail(
                        TransferStatus.FAILED,
                        new TransferException("the owner of " + name + " segment " + t.handle()
                                + " died or closed it during the batch"));
                return;
            }
        }
        if (pacer != null && p.totalSlices() > 0) {
            pacer.completeAt(p, this::finish);
        } else {
            finish(p);
        }
    }

    private void finish(BatchProgress p) {
        deadlines.remove(p);
        p.complete();
    }

    private void ensureOpen() {
        if (closed) throw new IllegalStateException("the " + name + " transfer engine is closed");
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        lanes.close();
        deadlines.close();
        if (pacer != null) pacer.close();
        for (BatchProgress p : deadlines.drain())
            p.fail(TransferStatus.FAILED, new TransferException("transfer engine closed"));
        for (ShmMapping m : mappings) m.close();
        for (ShmSegment s : segments) s.close();
        mappings.clear();
        segments.clear();
        buffers.close();
    }
}
