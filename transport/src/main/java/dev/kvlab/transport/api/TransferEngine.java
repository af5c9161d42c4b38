package dev.kvlab.transport.api;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * A TransferEngine-like endpoint (after Mooncake's Transfer Engine). A process registers memory
 * {@link Segment}s that peers may access one-sidedly, opens peers' segments by their {@link SegmentHandle},
 * and submits batches of READ/WRITE requests. Requests larger than the configured slice size are split into
 * slices that may travel in parallel. Completion is one future per batch with a status per request.
 *
 * <p>Implementations are thread-safe: several threads may submit batches concurrently. They are created
 * through {@link dev.kvlab.transport.Transports}, found by {@link java.util.ServiceLoader}.
 */
public interface TransferEngine extends AutoCloseable {

    /** The transport's name: {@code local}, {@code tcp}, {@code shm}, {@code rdma-emu}, … */
    String name();

    /** True when part of this transport's behaviour is modelled, not real (rdma-emu's NIC). Reports say so. */
    boolean emulated();

    /**
     * In one sentence, what this transport copies per transfer, for reports ("zero-copy has edges"), e.g.
     * "READ: target segment -> kernel socket buffer -> initiator buffer (2 copies + kernel)".
     */
    String copySemantics();

    /** Registers {@code bytes} of memory under {@code name} that peers may READ and WRITE. */
    Segment registerSegment(String name, long bytes);

    /** Allocates an off-heap local buffer suitable as the local side of requests (page-aligned, zeroed). */
    MemorySegment allocateBuffer(long bytes);

    /**
     * Opens a peer's segment for transfers. Throws {@link IllegalArgumentException} when the handle belongs to
     * another transport, {@link TransferException} when the peer cannot be reached.
     */
    RemoteSegment openSegment(SegmentHandle handle);

    /**
     * Submits a batch. The future completes normally with the same batch once every request has a final
     * status ({@link TransferBatch#allOk()} tells whether all succeeded), or exceptionally with a
     * {@link TransferException} when the peer dies or the batch outlives the configured timeout; in both
     * cases within the timeout. Never blocks the caller for the duration of the transfer.
     */
    CompletableFuture<TransferBatch> submit(TransferBatch batch);

    /** Releases every segment, connection and thread. */
    @Override
    void close();
}
