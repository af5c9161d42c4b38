package dev.kvlab.harness.core.internal.live;

import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * PD disaggregation's KV handoff on the live clock: a decode-side transfer engine registers a receive segment,
 * a prefill-side engine WRITEs the prompt's KV into it over the real transport (one-sided, as Mooncake's Transfer
 * Engine does), and the decode side verifies every block it received against its key's content. The segment is
 * cut into slots of {@code CHUNK} blocks; a handoff moves its blocks slot by slot. Thread-safe.
 */
final class PdLink implements AutoCloseable {

    private final TransferEngine decodeSide;
    private final TransferEngine prefillSide;
    private final Segment receive;
    private final RemoteSegment target;
    private final MemorySegment[] staging;
    private final ArrayBlockingQueue<Integer> slots;
    private final long blockBytes;
    private final long slotBytes;
    private final long timeoutNanos;

    PdLink(String transport, TransportConfig config, int slotCount, long blockBytes) {
        this.blockBytes = blockBytes;
        this.slotBytes = LiveStore.CHUNK * blockBytes;
        this.timeoutNanos = config.timeout().toNanos();
        Transports t = Transports.discover();
        this.decodeSide = t.create(transport, config);
        this.prefillSide = t.create(transport, config);
        this.receive = decodeSide.registerSegment("kvlab-pd-receive", slotCount * slotBytes);
        this.target = prefillSide.openSegment(receive.handle());
        this.staging = new MemorySegment[slotCount];
        this.slots = new ArrayBlockingQueue<>(slotCount);
        for (int i = 0; i < slotCount; i++) {
            staging[i] = prefillSide.allocateBuffer(slotBytes);
            slots.add(i);
        }
    }

    String describe() {
        return "PD handoff: " + prefillSide.name() + " WRITE into the decode side's registered segment; "
                + prefillSide.copySemantics();
    }

    /**
     * Moves the KV of {@code keys} (one block each) prefill → decode and verifies it on arrival. Returns the
     * bytes moved; throws when a transfer fails or a block arrives wrong.
     */
    long transfer(List<String> keys) throws InterruptedException {
        long moved = 0;
        for (int c = 0; c < keys.size(); c += LiveStore.CHUNK) {
            int n = Math.min(LiveStore.CHUNK, keys.size() - c);
            int slot = slots.take();
            try {
                MemorySegment local = staging[slot];
                for (int i = 0; i < n; i++) KeyedPayload.fill(keys.get(c + i), local, i * blockBytes, blockBytes);
                TransferBatch batch = new TransferBatch(1);
                batch.add(Opcode.WRITE, local, 0, target, slot * slotBytes, n * blockBytes);
                try {
                    prefillSide.submit(batch).get(timeoutNanos, TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    throw new IllegalStateException("PD handoff transfer failed: " + e.getMessage(), e);
                }
                if (!batch.allOk()) throw new IllegalStateException("PD handoff transfer ended " + batch.status(0));
                for (int i = 0; i < n; i++) {
                    if (!KeyedPayload.matches(
                            keys.get(c + i), receive.memory(), slot * slotBytes + i * blockBytes, blockBytes))
                        throw new IllegalStateException("PD handoff block " + keys.get(c + i) + " arrived wrong");
                }
                moved += n * blockBytes;
            } finally {
                slots.add(slot);
            }
        }
        return moved;
    }

    @Override
    public void close() {
        target.close();
        receive.close();
        prefillSide.close();
        decodeSide.close();
    }
}
