package dev.kvlab.harness.benchmark.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;

/**
 * Where a calibration measures: repeated calls timed one by one (latency, HdrHistogram in nanoseconds), or
 * calls from several threads counted by the bytes they moved (throughput over the wall time from the first start
 * to the last end). A short unmeasured warm-up comes first; a call that throws ends the probe with that error.
 */
final class Probe {

    /** One call that moves bytes and says how many. */
    interface Call {
        long run();
    }

    record Latency(Histogram histogram) {
        double p50Us() {
            return histogram.getValueAtPercentile(50) / 1e3;
        }
    }

    record Throughput(long bytes, double seconds) {
        double bytesPerSecond() {
            return seconds > 0 ? bytes / seconds : 0;
        }
    }

    private Probe() {}

    private static Duration warmup(Duration d) {
        return d.dividedBy(5);
    }

    static Latency latency(Duration d, Runnable call) {
        long end = System.nanoTime() + warmup(d).toNanos();
        do call.run();
        while (System.nanoTime() < end);
        Histogram h = new Histogram(3_600_000_000_000L, 3);
        end = System.nanoTime() + d.toNanos();
        long t;
        do {
            long t0 = System.nanoTime();
            call.run();
            t = System.nanoTime();
            h.recordValue(t - t0);
        } while (t < end);
        return new Latency(h);
    }

    static Throughput throughput(Duration d, int threads, IntFunction<Call> calls) throws InterruptedException {
        List<Call> cs = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) cs.add(calls.apply(i));
        long warm = System.nanoTime() + warmup(d).toNanos();
        run(cs, warm, null);
        AtomicLong bytes = new AtomicLong(), last = new AtomicLong();
        long t0 = System.nanoTime();
        run(cs, t0 + d.toNanos(), (b, t) -> {
            bytes.addAndGet(b);
            last.accumulateAndGet(t, Math::max);
        });
        return new Throughput(bytes.get(), (last.get() - t0) / 1e9);
    }

    private interface Sink {
        void done(long bytes, long endNanos);
    }

    private static void run(List<Call> cs, long until, Sink sink) throws InterruptedException {
        AtomicReference<RuntimeException> failed = new AtomicReference<>();
        List<Thread> ts = new ArrayList<>();
        for (Call c : cs) {
            ts.add(Thread.ofPlatform().name("kvlab-calibrate").start(() -> {
                try {
                    long t;
                    do {
                        long b = c.run();
                        t = System.nanoTime();
                        if (sink != null) sink.done(b, t);
                    } while (t < until && failed.get() == null);
                } catch (RuntimeException e) {
                    failed.compareAndSet(null, e);
                }
            }));
        }
        for (Thread t : ts) t.join();
        if (failed.get() != null) throw failed.get();
    }
}
