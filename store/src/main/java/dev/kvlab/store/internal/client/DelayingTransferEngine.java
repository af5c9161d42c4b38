package dev.kvlab.store.internal.client;

import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A decorator that completes every batch {@code delay} later than the real transport did: the {@code lease-expiry}
 * fault (reads slowed past the lease). Enabled by the backend extra {@code read-delay}.
 */
public final class DelayingTransferEngine implements TransferEngine {

    private final TransferEngine inner;
    private volatile long delayNanos;

    public DelayingTransferEngine(TransferEngine inner, Duration delay) {
        this.inner = inner;
        this.delayNanos = delay.toNanos();
    }

    public void delay(Duration d) {
        delayNanos = d.toNanos();
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public boolean emulated() {
        return inner.emulated();
    }

    @Override
    public String copySemantics() {
        return inner.copySemantics() + " (delayed by a test)";
    }

    @Override
    public Segment registerSegment(String name, long bytes) {
        return inner.registerSegment(name, bytes);
    }

    @Override
    public MemorySegment allocateBuffer(long bytes) {
        return inner.allocateBuffer(bytes);
    }

    @Override
    public RemoteSegment openSegment(SegmentHandle handle) {
        return inner.openSegment(handle);
    }

    @Override
    public CompletableFuture<TransferBatch> submit(TransferBatch batch) {
        long d = delayNanos;
        CompletableFuture<TransferBatch> f = inner.submit(batch);
        if (d <= 0) return f;
        return f.thenCompose(b ->
                CompletableFuture.supplyAsync(() -> b, CompletableFuture.delayedExecutor(d, TimeUnit.NANOSECONDS)));
    }

    @Override
    public void close() {
        inner.close();
    }
}
