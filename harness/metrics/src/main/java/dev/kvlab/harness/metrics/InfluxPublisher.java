package dev.kvlab.harness.metrics;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.SummaryRow;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.push.PushMeterRegistry;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.influxdb.dto.Point;

/**
 * Publishes a run to InfluxDB as it happens. Per cell × replicate: a meter registry from {@link PushRegistries}
 * with the cell's {@link CellMeters}, fed by a {@link CellSampler} (the {@link CellObserver} the cell runs with),
 * pushed every interval; when the cell ends its registry is closed (the final push) and its summary row is written
 * as one {@link SummaryPoint}. Both happen on one background thread, so a slow or unreachable InfluxDB never
 * holds up the run; failures are counted in {@link PushHealth}, which says so once. {@link #close()} waits a
 * bounded time for what is still queued, counts what it gives up on as dropped, and prints the counts.
 */
public final class InfluxPublisher implements AutoCloseable {

    private final InfluxTarget.Description target;
    private final PushRegistries registries;
    private final SummaryWriter summaries;
    private final PushHealth health;
    private final Clock clock;
    private final LongSupplier nanoTime;
    private final Duration sampleEvery;
    private final Duration drainTimeout;
    private final PrintStream err;
    private final ThreadPoolExecutor background = new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            Thread.ofPlatform().daemon().name("kvlab-influx-final").factory());
    private final Map<CellTags, Open> open = new LinkedHashMap<>();
    private boolean closed;

    private record Open(MeterRegistry registry, CellMeters meters, CellSampler sampler) {}

    /**
     * @param target       what to record about the InfluxDB (no secret)
     * @param registries   one registry per cell × replicate (closing it is its final push)
     * @param summaries    where summary points go
     * @param health       push counts
     * @param clock        wall clock of the summary points
     * @param nanoTime     monotonic clock of the samplers
     * @param sampleEvery  least wall time between two samples of a cell (the push interval)
     * @param drainTimeout how long {@link #close()} waits for queued pushes
     * @param err          where the end-of-run counts go
     */
    public InfluxPublisher(
            InfluxTarget.Description target,
            PushRegistries registries,
            SummaryWriter summaries,
            PushHealth health,
            Clock clock,
            LongSupplier nanoTime,
            Duration sampleEvery,
            Duration drainTimeout,
            PrintStream err) {
        this.target = target;
        this.registries = registries;
        this.summaries = summaries;
        this.health = health;
        this.clock = clock;
        this.nanoTime = nanoTime;
        this.sampleEvery = sampleEvery;
        this.drainTimeout = drainTimeout;
        this.err = err;
    }

    /** A publisher to the real InfluxDB {@code target}; says so once on {@code err} when it is unreachable. */
    public static InfluxPublisher open(InfluxTarget target, PrintStream err) {
        PushHealth health = new PushHealth(target.url().toString(), err);
        return new InfluxPublisher(
                target.describe(),
                PushRegistries.influx(target, health, io.micrometer.core.instrument.Clock.SYSTEM),
                SummaryWriter.forTarget(target),
                health,
                Clock.systemUTC(),
                System::nanoTime,
                target.interval(),
                Duration.ofSeconds(15),
                err);
    }

    /** A cell × replicate starts: registers its meters; the cell must run with the observer returned. */
    public synchronized CellObserver cellStarted(CellTags tags) {
        if (closed) throw new IllegalStateException("publisher closed");
        Open old = open.remove(tags);
        if (old != null) finish(old);
        CellSampler sampler = new CellSampler(nanoTime, sampleEvery);
        MeterRegistry registry = registries.open();
        CellMeters meters = new CellMeters(registry, tags, sampler::latest);
        open.put(tags, new Open(registry, meters, sampler));
        return sampler;
    }

    /**
     * A cell × replicate ended: its final push and its summary point ({@code row}: the summary row's columns) are
     * queued. A cell that failed passes {@code row = null}: only the final push.
     */
    public synchronized void cellFinished(CellTags tags, SummaryRow row) {
        Open o = open.remove(tags);
        if (o != null) finish(o);
        if (row != null && !closed) {
            Point p = SummaryPoint.of(tags, fieldsOf(tags, row), clock.millis());
            background.execute(new PointTask(p));
        }
    }

    /** The row's columns that are not already tags of the point (mode, factor columns, cell, replicate). */
    static SummaryRow fieldsOf(CellTags tags, SummaryRow row) {
        SummaryRow.Builder f = SummaryRow.builder();
        row.forEach((k, v) -> {
            if (!tags.tags().containsKey(k) && !tags.tags().containsKey(CellTags.key(k))) f.put(k, v);
        });
        return f.build();
    }

    private void finish(Open o) {
        if (closed) return;
        background.execute(new PushTask(o));
    }

    private final class PushTask implements Runnable {
        final Open o;

        PushTask(Open o) {
            this.o = o;
        }

        @Override
        public void run() {
            o.registry.close(); // a push registry publishes once more as it closes
        }
    }

    private final class PointTask implements Runnable {
        final Point p;

        PointTask(Point p) {
            this.p = p;
        }

        @Override
        public void run() {
            try {
                summaries.write(p);
                health.pointWritten();
            } catch (Exception e) {
                health.pointDropped(
                        e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
            }
        }
    }

    public PushHealth health() {
        return health;
    }

    /**
     * The manifest's {@code observability} section: the target (no secret) and the push counts. Waits first (at
     * most the drain timeout) for the final pushes and summary points still queued, so that the counts cover every
     * cell that finished; what is still queued after that is counted under {@code pending}.
     */
    public ObservabilitySection manifestSection() {
        long pending = flush(drainTimeout);
        return new ObservabilitySection(target, health.counts(), pending > 0 ? pending : null);
    }

    /** Waits until what was queued before this call has been pushed or dropped, at most {@code max}; returns how many tasks are still queued (0: all done). */
    public long flush(Duration max) {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        synchronized (this) {
            if (closed) return 0;
            background.execute(done::countDown);
        }
        try {
            if (done.await(max.toMillis(), TimeUnit.MILLISECONDS)) return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Math.max(1, background.getQueue().size());
    }

    /** Finishes open cells, waits (bounded) for the queued pushes and points, prints the counts on {@code err}. */
    @Override
    public void close() {
        List<Runnable> gaveUp = new ArrayList<>();
        synchronized (this) {
            if (closed) return;
            for (Open o : open.values()) finish(o);
            open.clear();
            closed = true;
        }
        background.shutdown();
        try {
            if (!background.awaitTermination(drainTimeout.toMillis(), TimeUnit.MILLISECONDS))
                gaveUp.addAll(background.shutdownNow());
        } catch (InterruptedException e) {
            gaveUp.addAll(background.shutdownNow());
            Thread.currentThread().interrupt();
        }
        for (Runnable r : gaveUp) {
            if (r instanceof PointTask) health.pointDropped("still queued when the run ended");
            else if (r instanceof PushTask t) {
                health.pushDropped("still queued when the run ended");
                if (t.o.registry instanceof PushMeterRegistry push) push.stop(); // no final push: InfluxDB is too slow
                else t.o.registry.close();
            }
        }
        summaries.close();
        err.println(health.line());
        err.flush();
    }
}
