package dev.kvlab.harness.metrics;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellProgress;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.store.api.MasterStats;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * Turns a running cell's interval ends into {@link CellSample}s for a publisher. On the cell's thread it merges
 * every interval histogram into its own (cheap), and at most once per {@code every} of wall time — and always at
 * the measured phase's end — computes percentiles of what was merged since the last sample, reads the counters
 * and the store (which walks the master's objects), and publishes the sample for other threads to read.
 */
public final class CellSampler implements CellObserver {

    private static final int DIGITS = 3;

    private final LongSupplier wallNanos;
    private final long everyNanos;
    private final EnumMap<Metric, Histogram> merged = new EnumMap<>(Metric.class);
    private final AtomicReference<CellSample> latest = new AtomicReference<>();
    private long lastSampleWall;
    private boolean sampled;
    private double lastStoreRunSeconds;
    private Map<String, Long> lastCalls = Map.of();
    private long samples;

    /**
     * @param wallNanos a monotonic wall clock in ns (e.g. {@code System::nanoTime})
     * @param every     least wall time between two samples
     */
    public CellSampler(LongSupplier wallNanos, Duration every) {
        this.wallNanos = wallNanos;
        this.everyNanos = every.toNanos();
        for (Metric m : Metric.values()) merged.put(m, new Histogram(DIGITS));
    }

    @Override
    public void intervalEnded(CellProgress p) {
        for (Metric m : Metric.values()) {
            Histogram h = p.interval(m);
            if (h != null && h.getTotalCount() > 0) merged.get(m).add(h);
        }
        long now = wallNanos.getAsLong();
        if (p.last() || !sampled || now - lastSampleWall >= everyNanos) {
            sample(p);
            lastSampleWall = now;
            sampled = true;
        }
    }

    private void sample(CellProgress p) {
        Map<Metric, double[]> pct = new EnumMap<>(Metric.class);
        for (Metric m : Metric.values()) {
            Histogram h = merged.get(m);
            pct.put(
                    m,
                    h.getTotalCount() == 0
                            ? new double[] {Double.NaN, Double.NaN, Double.NaN}
                            : new double[] {
                                h.getValueAtPercentile(50) / 1000.0,
                                h.getValueAtPercentile(99) / 1000.0,
                                h.getMaxValue() / 1000.0
                            });
            h.reset();
        }
        MasterStats store = p.store();
        Map<String, Long> calls = Collections.unmodifiableMap(new LinkedHashMap<>(p.storeCalls()));
        Map<String, Double> rates = new LinkedHashMap<>();
        double dt = p.runSeconds() - lastStoreRunSeconds;
        for (Map.Entry<String, Long> e : calls.entrySet()) {
            long before = lastCalls.getOrDefault(e.getKey(), 0L);
            rates.put(e.getKey(), dt > 0 ? (e.getValue() - before) / dt : Double.NaN);
        }
        lastCalls = calls;
        lastStoreRunSeconds = p.runSeconds();
        double in = p.inputTokens();
        latest.set(new CellSample(
                p.runSeconds(),
                Collections.unmodifiableMap(pct),
                p.requests(),
                p.completed(),
                p.failed(),
                p.good(),
                in == 0 ? Double.NaN : p.localHitTokens() / in,
                in == 0 ? Double.NaN : p.remoteHitTokens() / in,
                p.fetchedBytes(),
                p.fallbackBlocks(),
                p.wrongHitsUsed(),
                p.queued(),
                p.inFlight(),
                store,
                calls,
                Collections.unmodifiableMap(rates),
                p.last(),
                Map.copyOf(p.engineCounters()),
                p.storePath()));
        samples++;
    }

    /** The latest sample; {@code null} before the first. Any thread. */
    public CellSample latest() {
        return latest.get();
    }

    /** Samples taken so far (cell thread). */
    public long samples() {
        return samples;
    }
}
