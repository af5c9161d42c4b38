package dev.kvlab.harness.spi;

import dev.kvlab.workloads.api.Request;

/**
 * What every real target's request in service holds for the measurement ({@link Served}): the workload's request,
 * its intended arrival, whether it is a warm-up, and the listener's slot. A target adds what it observes.
 */
public abstract class ServedRequest implements Served {

    private final Request request;
    private final long intendedNanos;
    private final boolean warmup;
    private Object attachment;

    protected ServedRequest(Request request, long intendedNanos, boolean warmup) {
        this.request = request;
        this.intendedNanos = intendedNanos;
        this.warmup = warmup;
    }

    /** The workload's request. */
    public final Request request() {
        return request;
    }

    @Override
    public final long id() {
        return request.id();
    }

    @Override
    public final long intendedNanos() {
        return intendedNanos;
    }

    @Override
    public final boolean warmup() {
        return warmup;
    }

    @Override
    public final void attach(Object state) {
        attachment = state;
    }

    @Override
    public final Object attachment() {
        return attachment;
    }
}
