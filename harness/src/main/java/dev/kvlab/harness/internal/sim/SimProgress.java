package dev.kvlab.harness.internal.sim;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellProgress;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.internal.engine.Instance;
import dev.kvlab.harness.internal.engine.ServingModel;
import dev.kvlab.harness.internal.measure.Measurement;
import dev.kvlab.store.api.master.MasterStats;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** A sim cell's {@link CellProgress}: reads the measurement, the serving model and the sim store on the loop thread. */
final class SimProgress implements CellProgress {

    private final Measurement m;
    private final ServingModel model;
    private final SimStore store;
    private final CellObserver observer;
    private long endNanos;
    private Map<Metric, Histogram> interval;

    SimProgress(Measurement m, ServingModel model, SimStore store, CellObserver observer) {
        this.m = m;
        this.model = model;
        this.store = store;
        this.observer = observer;
    }

    void cut(long endNanos, Map<Metric, Histogram> interval) {
        this.endNanos = endNanos;
        this.interval = interval;
        try {
            observer.intervalEnded(this);
        } finally {
            this.interval = null;
        }
    }

    @Override public boolean last() { return m.finishing(); }
    @Override public double runSeconds() { return endNanos / 1e9; }
    @Override public Histogram interval(Metric metric) {
        if (interval == null) throw new IllegalStateException("a CellProgress is valid only during intervalEnded");
        return interval.get(metric);
    }
    @Override public long requests() { return m.requests(); }
    @Override public long completed() { return m.completed(); }
    @Override public long failed() { return m.failed(); }
    @Override public long good() { return m.good(); }
    @Override public long inputTokens() { return m.inputTokens(); }
    @Override public long localHitTokens() { return m.localHitTokens(); }
    @Override public long remoteHitTokens() { return m.remoteHitTokens(); }
    @Override public long fetchedBytes() { return m.fetchedBytes(); }
    @Override public long fallbackBlocks() { return m.fallbackBlocks(); }
    @Override public long wrongHitsUsed() { return store.stats().wrongHitsUsed(); }

    @Override
    public int queued() {
        int q = 0;
        for (Instance in : model.instances()) q += in.queued();
        return q;
    }

    @Override public long inFlight() { return model.inFlight(); }
    @Override public MasterStats store() { return store.master().stats(); }
    @Override public Map<String, Long> storeCalls() { return store.masterCalls(); }
}
