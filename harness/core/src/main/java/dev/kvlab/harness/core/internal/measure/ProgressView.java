package dev.kvlab.harness.core.internal.measure;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellProgress;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.spi.Server;
import dev.kvlab.store.api.MasterStats;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * A running cell's {@link CellProgress} for its {@link CellObserver}, sim or live: reads the measurement, the
 * server and the audit of fetched blocks on the cell's loop thread at every interval cut ({@link #watch}).
 */
public final class ProgressView implements CellProgress {

    private final Measurement m;
    private final Server model;
    private final LongSupplier wrongHits;
    private final Supplier<MasterStats> master;
    private final Supplier<Map<String, Long>> calls;
    private final Supplier<Map<String, Double>> engine;
    private final CellObserver observer;
    private final boolean storePath;
    private long endNanos;
    private Map<Metric, Histogram> interval;

    private ProgressView(
            Measurement m,
            Server model,
            LongSupplier wrongHits,
            Supplier<MasterStats> master,
            Supplier<Map<String, Long>> calls,
            Supplier<Map<String, Double>> engine,
            CellObserver observer,
            boolean storePath) {
        this.engine = engine;
        this.storePath = storePath;
        this.m = m;
        this.model = model;
        this.wrongHits = wrongHits;
        this.master = master;
        this.calls = calls;
        this.observer = observer;
    }

    /**
     * Lets {@code observer} watch {@code m}'s cuts (nothing when it is {@link CellObserver#NONE}).
     *
     * @param master the store master's stats ({@code null} result: not visible from this cell)
     * @param calls  calls made to the master so far, by operation (empty: not counted by this cell)
     * @param engine the target's own counters so far (empty: none)
     * @param storePath whether kvlab's store path serves the cell ({@link CellProgress#storePath()})
     */
    public static void watch(
            Measurement m,
            Server model,
            LongSupplier wrongHits,
            Supplier<MasterStats> master,
            Supplier<Map<String, Long>> calls,
            Supplier<Map<String, Double>> engine,
            CellObserver observer,
            boolean storePath) {
        if (observer == null || observer == CellObserver.NONE) return;
        m.onCut(new ProgressView(m, model, wrongHits, master, calls, engine, observer, storePath)::cut);
    }

    private void cut(long endNanos, Map<Metric, Histogram> interval) {
        this.endNanos = endNanos;
        this.interval = interval;
        try {
            observer.intervalEnded(this);
        } finally {
            this.interval = null;
        }
    }

    @Override
    public boolean last() {
        return m.finishing();
    }

    @Override
    public double runSeconds() {
        return endNanos / 1e9;
    }

    @Override
    public Histogram interval(Metric metric) {
        if (interval == null) throw new IllegalStateException("a CellProgress is valid only during intervalEnded");
        return interval.get(metric);
    }

    @Override
    public long requests() {
        return m.requests();
    }

    @Override
    public long completed() {
        return m.completed();
    }

    @Override
    public long failed() {
        return m.failed();
    }

    @Override
    public long good() {
        return m.good();
    }

    @Override
    public long inputTokens() {
        return m.inputTokens();
    }

    @Override
    public long localHitTokens() {
        return m.localHitTokens();
    }

    @Override
    public long remoteHitTokens() {
        return m.remoteHitTokens();
    }

    @Override
    public long fetchedBytes() {
        return m.fetchedBytes();
    }

    @Override
    public long fallbackBlocks() {
        return m.fallbackBlocks();
    }

    @Override
    public long wrongHitsUsed() {
        return wrongHits.getAsLong();
    }

    @Override
    public boolean storePath() {
        return storePath;
    }

    @Override
    public Map<String, Double> engineCounters() {
        return engine.get();
    }

    @Override
    public int queued() {
        return model.queued();
    }

    @Override
    public long inFlight() {
        return model.inFlight();
    }

    @Override
    public MasterStats store() {
        return master.get();
    }

    @Override
    public Map<String, Long> storeCalls() {
        return calls.get();
    }
}
