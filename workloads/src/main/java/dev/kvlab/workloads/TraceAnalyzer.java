package dev.kvlab.workloads;

import dev.kvlab.workloads.api.LruCapacity;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.TraceAnalysis;
import dev.kvlab.workloads.api.TraceFormat;
import dev.kvlab.workloads.api.WorkloadFormatException;
import dev.kvlab.workloads.internal.analysis.DenseLru;
import dev.kvlab.workloads.internal.analysis.IntList;
import dev.kvlab.workloads.internal.analysis.LongIntMap;
import dev.kvlab.workloads.internal.analysis.StackDistances;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * Analyses a request sequence for prefix-cache reuse, with the semantics of the Mooncake trace reference figures:
 *
 * <ul>
 *   <li>Requests are taken in order. A request's <b>hit blocks</b> are the length of the longest prefix of its block
 *       keys present in the cache <i>before</i> the request touches it; its <b>token hits</b> are
 *       {@code min(blockTokens * hit blocks, inputTokens)}. Ratios are sums over all requests (hits / total).</li>
 *   <li><b>Ideal</b> (infinite) cache: every block seen in an earlier request is present.</li>
 *   <li><b>LRU</b> with capacity {@code C = floor(f * distinctBlocks)} (a fraction) or {@code C = floor(tokens / blockTokens)}
 *       (a token capacity, {@link LruCapacity}): after counting the hits, the request's keys are
 *       walked in order; a present key moves to most-recently-used, an absent one is inserted as most-recently-used
 *       and, while the cache holds more than {@code C} blocks, the least-recently-used block is evicted (possibly one
 *       the same request inserted).</li>
 * </ul>
 *
 * <p>Usage: {@link #add(Request)} every request (only compact ints are kept: one per block reference), then
 * {@link #finish(List)} once. Not thread-safe.
 */
public final class TraceAnalyzer {

    private final LongIntMap ids = new LongIntMap(1 << 16);
    private final IntList accesses = new IntList(1 << 16);
    private final IntList blocksPerRequest = new IntList(1 << 12);
    private final IntList inputs = new IntList(1 << 12);
    private final IntList outputs = new IntList(1 << 12);
    private final IntList blockTokens = new IntList(1 << 12);
    private long firstNanos;
    private long lastNanos;
    private long totalInput;
    private long totalOutput;
    private boolean finished;
    private int[] idealHits;
    private int[][] lruHits;

    /** Adds the next request. */
    public void add(Request r) {
        if (finished) throw new IllegalStateException("finish() was already called");
        if (inputs.size() == 0) firstNanos = r.arrivalNanos();
        lastNanos = r.arrivalNanos();
        long[] keys = r.blockKeys();
        for (long k : keys) accesses.add(ids.idOf(k));
        blocksPerRequest.add(keys.length);
        inputs.add(r.inputTokens());
        outputs.add(r.outputTokens());
        blockTokens.add(r.blockTokens());
        totalInput += r.inputTokens();
        totalOutput += r.outputTokens();
    }

    /** Adds every remaining request of {@code requests}. */
    public TraceAnalyzer addAll(Iterator<Request> requests) {
        while (requests.hasNext()) add(requests.next());
        return this;
    }

    /**
     * Adds every request of the Mooncake trace {@code trace} read with {@code format} ({@code kvlab analyze}); a trace
     * without requests is refused ({@link WorkloadFormatException}): a report of none would look like an analysis.
     */
    public static TraceAnalyzer read(Path trace, TraceFormat format) {
        TraceAnalyzer analyzer = new TraceAnalyzer();
        try (RequestSource source = MooncakeTrace.open(trace, format, Namespace.of("trace"))) {
            analyzer.addAll(source);
        }
        // as kvlab run refuses it (TraceCheck)
        if (analyzer.requests() == 0)
            throw new WorkloadFormatException(trace + ": no requests (an empty trace): nothing to analyze");
        return analyzer;
    }

    /** Number of requests added so far. */
    public long requests() {
        return inputs.size();
    }

    /** Analyses every remaining request of {@code requests} at the given capacity fractions. */
    public static TraceAnalysis analyze(Iterator<Request> requests, List<Double> capacityFractions) {
        return new TraceAnalyzer().addAll(requests).finish(capacityFractions);
    }

    /** Number of distinct block keys so far. */
    public long distinctBlocks() {
        return ids.size();
    }

    /**
     * Runs the ideal cache, one LRU per capacity fraction ({@code f >= 0}; capacity {@code floor(f * distinct)}) and
     * the reuse distances.
     */
    public TraceAnalysis finish(List<Double> capacityFractions) {
        return finishCapacities(capacityFractions.stream()
                .<LruCapacity>map(LruCapacity.Fraction::new)
                .toList());
    }

    /**
     * Runs the ideal cache, one LRU per capacity (a fraction of the distinct blocks, or tokens: {@code floor(tokens /
     * blockTokens)} blocks, which needs one block size over the whole trace) and the reuse distances.
     */
    public TraceAnalysis finishCapacities(List<LruCapacity> capacities) {
        if (finished) throw new IllegalStateException("finish() was already called");
        int uniformBlockTokens = uniformBlockTokens();
        for (LruCapacity c : capacities) {
            if (c instanceof LruCapacity.Tokens && uniformBlockTokens <= 0)
                throw new IllegalArgumentException(
                        uniformBlockTokens == 0
                                ? "a token capacity needs at least one request (to know its block size)"
                                : "a token capacity needs one block size, but the requests' block sizes differ");
        }
        finished = true;
        int n = inputs.size();
        int distinct = ids.size();
        int[] acc = accesses.raw();
        int[] nb = blocksPerRequest.raw();
        int[] in = inputs.raw();
        int[] bt = blockTokens.raw();
        long totalBlocks = accesses.size();

        // ideal: ids are dense in first-access order, so "seen before this request" is "id < seen"
        idealHits = new int[n];
        long idealBlocks = 0, idealTokens = 0;
        int seen = 0;
        for (int r = 0, pos = 0; r < n; r++) {
            int k = nb[r];
            int h = 0;
            while (h < k && acc[pos + h] < seen) h++;
            idealHits[r] = h;
            idealBlocks += h;
            idealTokens += Math.min((long) bt[r] * h, in[r]);
            for (int j = 0; j < k; j++) seen = Math.max(seen, acc[pos + j] + 1);
            pos += k;
        }
        TraceAnalysis.CacheHits ideal = new TraceAnalysis.CacheHits(
                Double.POSITIVE_INFINITY, -1, -1, idealBlocks, totalBlocks, idealTokens, totalInput);

        List<TraceAnalysis.CacheHits> lru = new ArrayList<>();
        lruHits = new int[capacities.size()][];
        for (int c = 0; c < capacities.size(); c++) {
            long capacity, capacityTokens;
            double f;
            switch (capacities.get(c)) {
                case LruCapacity.Fraction fr -> {
                    f = fr.fraction();
                    capacity = (long) Math.floor(f * (double) distinct);
                    capacityTokens = uniformBlockTokens > 0 ? capacity * uniformBlockTokens : -1;
                }
                case LruCapacity.Tokens t -> {
                    capacityTokens = t.tokens();
                    capacity = t.tokens() / uniformBlockTokens;
                    f = distinct == 0 ? 0 : (double) capacity / distinct;
                }
            }
            DenseLru cache = new DenseLru(capacity, distinct);
            int[] hits = new int[n];
            long hitBlocks = 0, hitTokens = 0;
            for (int r = 0, pos = 0; r < n; r++) {
                int k = nb[r];
                int h = 0;
                while (h < k && cache.contains(acc[pos + h])) h++;
                hits[r] = h;
                hitBlocks += h;
                hitTokens += Math.min((long) bt[r] * h, in[r]);
                for (int j = 0; j < k; j++) cache.touch(acc[pos + j]);
                pos += k;
            }
            lruHits[c] = hits;
            lru.add(new TraceAnalysis.CacheHits(
                    f, capacity, capacityTokens, hitBlocks, totalBlocks, hitTokens, totalInput));
        }

        return new TraceAnalysis(
                n,
                n == 0 ? 0 : firstNanos,
                n == 0 ? 0 : lastNanos,
                stats(inputs, totalInput),
                stats(outputs, totalOutput),
                totalBlocks,
                distinct,
                ideal,
                lru,
                reuse(acc, accesses.size(), distinct));
    }

    /** Per-request ideal-cache hit blocks, in request order (after {@link #finish}). */
    public int[] idealHitBlocks() {
        if (!finished) throw new IllegalStateException("call finish() first");
        return idealHits.clone();
    }

    /** Per-request LRU hit blocks at the {@code index}-th capacity given to {@link #finish} (after it). */
    public int[] lruHitBlocks(int index) {
        if (!finished) throw new IllegalStateException("call finish() first");
        return lruHits[index].clone();
    }

    /** The requests' block size when they all have the same one; 0 without requests, -1 when sizes differ. */
    public int uniformBlockTokens() {
        int n = blockTokens.size();
        if (n == 0) return 0;
        int[] bt = blockTokens.raw();
        for (int i = 1; i < n; i++) if (bt[i] != bt[0]) return -1;
        return bt[0];
    }

    /** Per-request block counts, in request order. */
    public int[] blocksPerRequest() {
        return blocksPerRequest.toArray();
    }

    private static TraceAnalysis.ReuseDistances reuse(int[] acc, int count, int distinct) {
        StackDistances sd = new StackDistances(count, distinct);
        long[] buckets = new long[64];
        long cold = 0;
        double sum = 0;
        for (int i = 0; i < count; i++) {
            long d = sd.access(acc[i]);
            if (d == StackDistances.COLD) {
                cold++;
            } else {
                buckets[64 - Long.numberOfLeadingZeros(d)]++;
                sum += d;
            }
        }
        List<TraceAnalysis.ReuseDistances.Bucket> list = new ArrayList<>();
        for (int b = 0; b < 64; b++) {
            if (buckets[b] == 0) continue;
            long from = b == 0 ? 0 : 1L << (b - 1);
            long to = b == 0 ? 0 : (1L << b) - 1;
            list.add(new TraceAnalysis.ReuseDistances.Bucket(from, to, buckets[b]));
        }
        long warm = count - cold;
        return new TraceAnalysis.ReuseDistances(count, cold, list, warm == 0 ? 0 : sum / warm);
    }

    private static TraceAnalysis.TokenStats stats(IntList values, long total) {
        int n = values.size();
        if (n == 0) return new TraceAnalysis.TokenStats(0, 0, 0, 0, 0, 0, 0);
        int[] v = values.toArray();
        Arrays.sort(v);
        return new TraceAnalysis.TokenStats(
                total, v[0], (double) total / n, rank(v, 50), rank(v, 90), rank(v, 99), v[n - 1]);
    }

    private static long rank(int[] sorted, int pct) {
        int idx = (int) Math.ceil(pct / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, idx)];
    }
}
