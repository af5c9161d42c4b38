package dev.kvlab.workloads.internal.arrival;

import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;

/**
 * Replays a trace whose timestamps are quantized (rounded down to a tick, as the Mooncake traces are to 3 s) with
 * the requests of one tick spread over it: the {@code n} requests stamped {@code t} get {@code n} sorted uniform
 * offsets in {@code [t, t + w)}, {@code w} = the tick, or the gap to the next stamp if that is shorter, in file
 * order. (Given {@code n} arrivals of a Poisson process in a window, their times are independent uniforms over it.)
 * A tick's requests sent in one instant are a burst that no slow-down thins, which would make load the wrong knob.
 *
 * <p>The tick is given, or detected ({@code auto}) from the first {@link #DETECT_REQUESTS} requests: quantized when
 * they carry at least three distinct stamps, at least two requests per stamp on average, and at least 90% of the
 * gaps between distinct stamps within max(1 ms, 1%) of a whole multiple of the median gap (the tick). Otherwise the
 * timestamps pass unchanged. Seeded and deterministic; a group of more than {@link #MAX_GROUP} requests on one
 * stamp passes unspread (memory stays bounded).
 */
public final class TickSpreadSource implements RequestSource {

    /** Requests read ahead to detect the tick. */
    public static final int DETECT_REQUESTS = 4096;
    /** Largest group of one stamp that is spread. */
    public static final int MAX_GROUP = 1 << 16;

    private final RequestSource source;
    private final SplittableRandom random;
    private final long tickNanos; // 0: pass unchanged
    private final String how;
    private final ArrayDeque<Request> ahead = new ArrayDeque<>();
    private final ArrayDeque<Request> out = new ArrayDeque<>();

    /**
     * @param tickNanos the tick; {@code -1} to detect it, {@code 0} to pass timestamps unchanged
     */
    public TickSpreadSource(RequestSource source, long tickNanos, long seed) {
        this.source = source;
        this.random = new SplittableRandom(seed);
        if (tickNanos < 0) {
            while (ahead.size() < DETECT_REQUESTS && source.hasNext()) ahead.addLast(source.next());
            long t = detect(ahead);
            this.tickNanos = t;
            this.how = t > 0
                    ? "spread=auto (timestamps quantized to " + millis(t)
                            + " ms: each tick's requests spread over it, seeded)"
                    : "spread=auto (timestamps not quantized: as given)";
        } else {
            this.tickNanos = tickNanos;
            this.how = tickNanos > 0
                    ? "spread=" + millis(tickNanos) + "ms (each tick's requests spread over it, seeded)"
                    : "spread=none";
        }
    }

    /** What this replay does with the stamps ({@code spread=...}), as {@link #describe()} says it after the source. */
    public String how() {
        return how;
    }

    /** The tick of quantized stamps among {@code requests}, or 0 when they do not look quantized. */
    static long detect(Iterable<Request> requests) {
        List<Long> stamps = new ArrayList<>();
        int n = 0;
        long last = Long.MIN_VALUE;
        for (Request r : requests) {
            n++;
            if (r.arrivalNanos() != last) stamps.add(last = r.arrivalNanos());
        }
        if (stamps.size() < 3 || n < 2 * stamps.size()) return 0;
        long[] gaps = new long[stamps.size() - 1];
        for (int i = 1; i < stamps.size(); i++) gaps[i - 1] = stamps.get(i) - stamps.get(i - 1);
        long[] sorted = gaps.clone();
        Arrays.sort(sorted);
        long q = sorted[sorted.length / 2];
        if (q <= 0) return 0;
        long tol = Math.max(1_000_000L, q / 100);
        int fit = 0;
        for (long g : gaps) {
            long k = Math.max(1, Math.round((double) g / q));
            if (Math.abs(g - k * q) <= tol * k) fit++;
        }
        return fit >= 0.9 * gaps.length ? q : 0;
    }

    @Override
    public boolean hasNext() {
        return !out.isEmpty() || !ahead.isEmpty() || source.hasNext();
    }

    @Override
    public Request next() {
        if (out.isEmpty()) fill();
        if (out.isEmpty()) throw new NoSuchElementException();
        return out.removeFirst();
    }

    private Request read() {
        return !ahead.isEmpty() ? ahead.removeFirst() : source.hasNext() ? source.next() : null;
    }

    private Request peek() {
        if (ahead.isEmpty() && source.hasNext()) ahead.addLast(source.next());
        return ahead.peekFirst();
    }

    /** Reads the next group of one stamp and spreads it into {@code out}. */
    private void fill() {
        Request first = read();
        if (first == null) return;
        if (tickNanos == 0) {
            out.addLast(first);
            return;
        }
        long t = first.arrivalNanos();
        List<Request> group = new ArrayList<>();
        group.add(first);
        Request p;
        while ((p = peek()) != null && p.arrivalNanos() == t && group.size() < MAX_GROUP) group.add(read());
        if (p != null && p.arrivalNanos() == t) { // an oversized group: as given
            out.addAll(group);
            while ((p = peek()) != null && p.arrivalNanos() == t) out.addLast(read());
            return;
        }
        long width = p == null ? tickNanos : Math.min(tickNanos, p.arrivalNanos() - t);
        double[] u = new double[group.size()];
        for (int i = 0; i < u.length; i++) u[i] = random.nextDouble();
        Arrays.sort(u);
        for (int i = 0; i < u.length; i++) out.addLast(group.get(i).withArrivalNanos(t + (long) (u[i] * width)));
    }

    @Override
    public String describe() {
        return source.describe() + "; " + how;
    }

    @Override
    public void close() {
        source.close();
    }

    private static String millis(long nanos) {
        double ms = nanos / 1e6;
        return ms == Math.rint(ms) ? Long.toString((long) ms) : Double.toString(ms);
    }
}
