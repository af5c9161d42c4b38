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
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** The in-process transport: a READ or WRITE is one {@code MemorySegment.copy} on the submitting thread. */
final class LocalTransferEngine implements TransferEngine {

    private final String id = "e" + UUID.randomUUID().toString().substring(0, 8);
    private final List<LocalSegment> segments = new CopyOnWriteArrayList<>();
    private final Arena buffers = Arena.ofShared();

    LocalTransferEngine(TransportConfig config) {}

    @Override public String name() { return "local"; }

    @Override public boolean emulated() { return false; }

    @Override
    public String copySemantics() {
        return "one memory copy between the initiator's buffer and the target segment, in process, on the submitting thread";
    }

    @Override
    public Segment registerSegment(String name, long bytes) {
        LocalSegment s = new LocalSegment(id, name, bytes);
        segments.add(s);
        return s;
    }

    @Override
    public MemorySegment allocateBuffer(long bytes) {
        return buffers.allocate(bytes, 4096);
    }

    @Override
    public RemoteSegment openSegment(SegmentHandle handle) {
        if (!"local".equals(handle.transport()))
            throw new IllegalArgumentException("not a local segment: " + handle + " (the local transport opens local:// handles)");
        LocalSegment s = LocalDirectory.JVM.find(handle.address() + "/" + handle.segment());
        if (s == null || !s.isOpen()) throw new TransferException("no local segment " + handle + " in this process");
        return new Remote(handle, s);
    }

    @Override
    public CompletableFuture<TransferBatch> submit(TransferBatch batch) {
        boolean peerGone = false;
        for (int i = 0; i < batch.size(); i++) {
            Remote r = (Remote) batch.target(i);
            LocalSegment s = r.target;
            try {
                if (!s.isOpen()) {
                    batch.status(i, TransferStatus.FAILED);
                    peerGone = true;
                    continue;
                }
                if (batch.op(i) == Opcode.READ)
                    MemorySegment.copy(s.memory(), batch.targetOffset(i), batch.local(i), batch.localOffset(i), batch.length(i));
                else
                    MemorySegment.copy(batch.local(i), batch.localOffset(i), s.memory(), batch.targetOffset(i), batch.length(i));
                batch.status(i, TransferStatus.OK);
            } catch (IllegalStateException e) { // the segment's arena closed mid-copy
                batch.status(i, TransferStatus.FAILED);
                peerGone = true;
            }
        }
        return peerGone
                ? CompletableFuture.failedFuture(new TransferException("local segment closed during the batch"))
                : CompletableFuture.completedFuture(batch);
    }

    @Override
    public void close() {
        for (LocalSegment s : segments) s.close();
        segments.clear();
        buffers.close();
    }

    private record Remote(SegmentHandle handle, LocalSegment target) implements RemoteSegment {
        @Override public void close() {}
    }
}
