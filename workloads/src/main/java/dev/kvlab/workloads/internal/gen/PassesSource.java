package dev.kvlab.workloads.internal.gen;

import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import java.util.NoSuchElementException;
import java.util.function.LongFunction;

/**
 * A generated workload {@code passes} times over, one pass after the other: pass 0 is the workload itself (its seed),
 * pass {@code p} the same generator with a seed of its own (fresh content drawn the same way). Request ids run on
 * across passes and a later pass's sessions are named {@code p<p>/<session>}, so the first pass's requests are
 * exactly those of the one-pass workload: a longer run of the same stream.
 */
public final class PassesSource implements RequestSource {

    private final LongFunction<RequestSource> pass;
    private final int passes;
    private RequestSource current;
    private int p;
    private long id;

    /** @param pass opens pass {@code p} (0 = the workload's own seed) */
    public PassesSource(LongFunction<RequestSource> pass, int passes) {
        if (passes < 1) throw new IllegalArgumentException("passes must be >= 1, got " + passes);
        this.pass = pass;
        this.passes = passes;
        this.current = pass.apply(0);
    }

    @Override
    public boolean hasNext() {
        while (!current.hasNext() && p + 1 < passes) {
            current.close();
            current = pass.apply(++p);
        }
        return current.hasNext();
    }

    @Override
    public Request next() {
        if (!hasNext()) throw new NoSuchElementException();
        Request r = current.next();
        long n = id++;
        if (p == 0) return r;
        return new Request(
                n,
                r.arrivalNanos(),
                "p" + p + "/" + r.session(),
                r.inputTokens(),
                r.outputTokens(),
                r.blockTokens(),
                r.blockKeys(),
                r.namespace());
    }

    @Override
    public String describe() {
        return current.describe() + " passes=" + passes;
    }

    @Override
    public void close() {
        current.close();
    }
}
