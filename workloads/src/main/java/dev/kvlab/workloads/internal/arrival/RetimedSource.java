package dev.kvlab.workloads.internal.arrival;

import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import java.util.SplittableRandom;

/**
 * An open-loop timing applied to a source: trace timestamps divided by the speed-up, or Poisson, gamma or constant
 * arrivals at a rate (first request at 0). Seeded.
 */
public final class RetimedSource implements RequestSource {

    private final RequestSource source;
    private final ArrivalSpec spec;
    private final long seed;
    private final GammaGaps gaps;
    private double seconds;
    private long index;
    private long last = Long.MIN_VALUE;

    public RetimedSource(RequestSource source, ArrivalSpec spec, long seed) {
        if (spec.closedLoop()) throw new IllegalArgumentException("closed loop is not an open-loop timing");
        this.source = source;
        this.spec = spec;
        this.seed = seed;
        double shape = spec.process().equals("gamma") ? spec.burstiness() : 1.0;
        this.gaps = spec.process().equals("poisson") || spec.process().equals("gamma")
                ? new GammaGaps(new SplittableRandom(seed), shape, 1.0 / spec.rate())
                : null;
    }

    @Override
    public boolean hasNext() {
        return source.hasNext();
    }

    @Override
    public Request next() {
        Request r = source.next();
        long i = index++;
        long t = switch (spec.process()) {
            case "trace" -> spec.speedup() == 1.0 ? r.arrivalNanos() : Math.round(r.arrivalNanos() / spec.speedup());
            case "constant" -> Math.round(i * 1e9 / spec.rate());
            case "poisson", "gamma" -> {
                if (i > 0) seconds += gaps.next();
                yield Math.round(seconds * 1e9);
            }
            default -> throw new IllegalStateException(spec.process());
        };
        if (t < last) t = last; // rounding never reorders
        last = t;
        return r.withArrivalNanos(t);
    }

    @Override
    public String describe() {
        return source.describe() + "; arrivals " + spec.describe() + (gaps != null ? " arrival_seed=" + seed : "");
    }

    @Override
    public void close() {
        source.close();
    }
}
