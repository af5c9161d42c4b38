package dev.kvlab.workloads.internal.gen;

import dev.kvlab.workloads.api.BlockKeys;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;

/**
 * A generated workload: {@code count} requests made one at a time by {@link #make(int)}, all at intended arrival 0
 * (an arrival process re-times them). Deterministic for a seed.
 */
public abstract class GeneratedSource implements RequestSource {

    protected final Namespace namespace;
    protected final long digest;
    protected final long seed;
    protected final int blockTokens;
    private final int count;
    private int next;

    protected GeneratedSource(Namespace namespace, long seed, int blockTokens, int count) {
        this.namespace = namespace;
        this.digest = namespace.digest();
        this.seed = seed;
        this.blockTokens = blockTokens;
        this.count = count;
    }

    /** Request number {@code index}, in order. */
    protected abstract Request make(int index);

    protected final Request request(int index, String session, TokenSequence prompt, int outputTokens) {
        return new Request(
                index,
                0,
                session,
                Math.toIntExact(prompt.tokens()),
                outputTokens,
                blockTokens,
                prompt.blockKeys(digest, blockTokens),
                namespace);
    }

    /** A random stream for one purpose of this workload (independent of the others). */
    protected final SplittableRandom random(long purpose) {
        return new SplittableRandom(TokenSequence.contentId(seed, 0x72616E646F6DL, purpose));
    }

    /**
     * A length of {@code base} tokens varied by {@code spread}: uniform over {@code base(1 - spread) .. base(1 + spread)},
     * at least 1, decided by {@code contentId} alone, so the same content has the same length wherever it recurs.
     */
    protected static int vary(int base, double spread, long contentId) {
        if (spread == 0) return base;
        double u = (BlockKeys.mix(contentId ^ 0x6C656E677468L) >>> 11) * 0x1.0p-53; // [0, 1)
        return Math.max(1, (int) Math.round(base * (1 - spread + 2 * spread * u)));
    }

    /** A seeded Fisher-Yates shuffle. */
    protected static void shuffle(int[] a, SplittableRandom rnd) {
        for (int i = a.length - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    public final int count() {
        return count;
    }

    @Override
    public final boolean hasNext() {
        return next < count;
    }

    @Override
    public final Request next() {
        if (next >= count) throw new NoSuchElementException();
        return make(next++);
    }

    @Override
    public void close() {}
}
