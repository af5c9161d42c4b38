package dev.kvlab.harness.benchmark.internal.store;

import dev.kvlab.store.api.ForwardingKvBackend;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.ReplicateConfig;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/**
 * The one place where a store benchmark measures (YCSB's {@code DBWrapper}): wraps any {@link KvBackend}, times
 * each get and put from its intended start into an HdrHistogram {@link Recorder} (microseconds), and counts
 * outcomes. In verify mode every hit is checked against the key's content here too, independently of the
 * backend: a hit with other bytes is a wrong payload ({@code wrong_bytes}), the one figure that must stay 0.
 * Other calls pass through unmeasured.
 */
public final class MeasuredBackend extends ForwardingKvBackend {

    private final boolean verify;
    private final Recorder latency = new Recorder(3_600_000_000L, 3);
    private volatile boolean recording;
    private volatile String firstError;
    final LongAdder ops = new LongAdder(),
            hits = new LongAdder(),
            misses = new LongAdder(),
            errors = new LongAdder(),
            wrong = new LongAdder(),
            leaseExpired = new LongAdder(),
            checksum = new LongAdder(),
            content = new LongAdder(),
            bytes = new LongAdder();

    public MeasuredBackend(KvBackend inner, boolean verify) {
        super(inner);
        this.verify = verify;
    }

    /** Only calls made while recording count (warm-up and loading do not). */
    public void recording(boolean on) {
        recording = on;
    }

    public Recorder latency() {
        return latency;
    }

    /** What the first failed measured get said (status and detail), or null. */
    public String firstError() {
        return firstError;
    }

    /** A get whose intended start was {@code intendedStartNanos} ({@link System#nanoTime()}). */
    public GetResult getInto(String key, MemorySegment dst, long intendedStartNanos) {
        GetResult r = delegate().getInto(key, dst);
        long end = System.nanoTime();
        if (!recording) return r;
        latency.recordValue(Math.max(0, (end - intendedStartNanos) / 1000));
        ops.increment();
        switch (r.status()) {
            case HIT -> {
                if (verify && !KeyedPayload.matches(key, dst, 0, r.length())) wrong.increment();
                else {
                    hits.increment();
                    bytes.add(r.length());
                }
            }
            case MISS -> misses.increment();
            case LEASE_EXPIRED -> {
                misses.increment();
                leaseExpired.increment();
            }
            case CHECKSUM_MISMATCH -> {
                misses.increment();
                checksum.increment();
            }
            case CONTENT_MISMATCH -> {
                misses.increment();
                content.increment();
            }
            case TIMEOUT, ERROR -> {
                errors.increment();
                if (firstError == null) firstError = r.status() + " " + r.detail();
            }
        }
        return r;
    }

    public PutStatus put(String key, MemorySegment value, ReplicateConfig config, long intendedStartNanos) {
        PutStatus s = delegate().put(key, value, config);
        long end = System.nanoTime();
        if (!recording) return s;
        latency.recordValue(Math.max(0, (end - intendedStartNanos) / 1000));
        ops.increment();
        if (s.isStored()) {
            hits.increment();
            bytes.add(value.byteSize());
        } else {
            errors.increment();
        }
        return s;
    }

    @Override
    public GetResult getInto(String key, MemorySegment dst) {
        return getInto(key, dst, System.nanoTime());
    }

    @Override
    public PutStatus put(String key, MemorySegment value, ReplicateConfig config) {
        return put(key, value, config, System.nanoTime());
    }
}
