package dev.kvlab.harness.core.internal.engine;

import dev.kvlab.harness.spi.EventLoop;
import dev.kvlab.harness.spi.PhaseDriver;
import dev.kvlab.harness.spi.Served;
import dev.kvlab.harness.spi.Server;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.workloads.api.ArrivalProcess;
import java.util.function.BooleanSupplier;

/**
 * Feeds an {@link ArrivalProcess} into a cell's {@link Server} on the loop: one pending event for the next release,
 * every due request submitted at its release, completions reported back (they may make more requests due in a
 * closed loop or under a concurrency cap). Times are relative to {@code origin} on the loop's clock. Also
 * forwards every model event to the measurement listener, so the model has one listener.
 */
public final class WorkloadDriver implements ServingListener, PhaseDriver {

    private final ArrivalProcess process;
    private final Server model;
    private final EventLoop loop;
    private final long origin;
    private final boolean warmup;
    private final ServingListener measure;
    private final int expectedBlockTokens;
    private long scheduledAt = Long.MAX_VALUE;
    private long released;
    private RuntimeException error;
    private BooleanSupplier stop = () -> false;
    private boolean stopped;

    public WorkloadDriver(
            ArrivalProcess process,
            Server model,
            EventLoop loop,
            long origin,
            boolean warmup,
            ServingListener measure,
            int expectedBlockTokens) {
        this.process = process;
        this.model = model;
        this.loop = loop;
        this.origin = origin;
        this.warmup = warmup;
        this.measure = measure;
        this.expectedBlockTokens = expectedBlockTokens;
    }

    public void start() {
        schedule();
    }

    /** Stops releasing requests once {@code decided} says so (asked before each release); those in flight finish. */
    public void stopReleasingWhen(BooleanSupplier decided) {
        this.stop = decided;
    }

    public long released() {
        return released;
    }

    /** A failure reading the workload (bad trace line), rethrown by the runner after the loop stops. */
    public RuntimeException error() {
        return error;
    }

    /** True when every request was released and none is in flight. */
    public boolean done() {
        return (stopped || process.exhausted()) && process.inFlight() == 0;
    }

    private void schedule() {
        if (error != null || stopped) return;
        long t;
        try {
            t = process.nextReleaseNanos();
        } catch (RuntimeException e) {
            error = e;
            return;
        }
        if (t == ArrivalProcess.NONE) return;
        long at = origin + t;
        if (at >= scheduledAt && scheduledAt > loop.now()) return;
        scheduledAt = at;
        loop.at(at, this::fire);
    }

    private void fire() {
        if (error != null || stopped) return;
        long now = loop.now();
        scheduledAt = Long.MAX_VALUE;
        try {
            while (true) {
                long t = process.nextReleaseNanos();
                if (t == ArrivalProcess.NONE || origin + t > now) break;
                if (stop.getAsBoolean()) {
                    stopped = true;
                    return;
                }
                ArrivalProcess.Release r = process.release();
                if (r.request().blockTokens() != expectedBlockTokens) {
                    throw new IllegalStateException("request " + r.request().id() + " has "
                            + r.request().blockTokens() + "-token blocks; the run was planned for "
                            + expectedBlockTokens + " (set workload.block_tokens)");
                }
                released++;
                model.submit(r.request(), origin + r.request().arrivalNanos(), warmup);
            }
        } catch (RuntimeException e) {
            error = e;
            return;
        }
        schedule();
    }

    private void finished(Served s, long now) {
        process.complete(s.id(), Math.max(0, now - origin));
        schedule();
    }

    @Override
    public void arrived(Served s, long now) {
        measure.arrived(s, now);
    }

    @Override
    public void admitted(Served s, long now) {
        measure.admitted(s, now);
    }

    @Override
    public void fetched(Served s, long fetchNanos, long now) {
        measure.fetched(s, fetchNanos, now);
    }

    @Override
    public void handedOver(Served s, dev.kvlab.harness.spi.Handover h, long now) {
        measure.handedOver(s, h, now);
    }

    @Override
    public void firstToken(Served s, long now) {
        measure.firstToken(s, now);
    }

    @Override
    public void token(Served s, long now) {
        measure.token(s, now);
    }

    @Override
    public void completed(Served s, long now) {
        measure.completed(s, now);
        finished(s, now);
    }

    @Override
    public void failed(Served s, long now) {
        measure.failed(s, now);
        finished(s, now);
    }
}
