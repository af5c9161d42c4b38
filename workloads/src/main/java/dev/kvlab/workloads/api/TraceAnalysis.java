package dev.kvlab.workloads.api;

import java.util.List;

/**
 * What a request sequence says about KV reuse before any system runs (see {@link dev.kvlab.workloads.TraceAnalyzer} for the exact
 * semantics).
 *
 * @param requests          number of requests
 * @param firstArrivalNanos intended arrival of the first request (0 when there is none)
 * @param lastArrivalNanos  intended arrival of the last request
 * @param inputTokens       prompt token statistics
 * @param outputTokens      output token statistics
 * @param totalBlocks       block references summed over all requests
 * @param distinctBlocks    distinct block keys
 * @param ideal             an infinite cache: every block seen before is present
 * @param lru               one LRU result per requested capacity, in the order given
 * @param reuseDistances    LRU stack distances of every block access
 */
public record TraceAnalysis(
        long requests,
        long firstArrivalNanos,
        long lastArrivalNanos,
        TokenStats inputTokens,
        TokenStats outputTokens,
        long totalBlocks,
        long distinctBlocks,
        CacheHits ideal,
        List<CacheHits> lru,
        ReuseDistances reuseDistances) {

    public TraceAnalysis {
        lru = List.copyOf(lru);
    }

    /**
     * Token count statistics; percentiles are nearest-rank (the smallest value with at least p% of the values at or
     * below it). All 0 when there are no requests.
     */
    public record TokenStats(long total, long min, double mean, long p50, long p90, long p99, long max) {}

    /**
     * Hits of one cache.
     *
     * @param capacityFraction capacity as a fraction of the distinct blocks ({@code capacityBlocks / distinctBlocks} for a
     *                         token capacity); {@code Double.POSITIVE_INFINITY} for the ideal cache
     * @param capacityBlocks   {@code floor(capacityFraction * distinctBlocks)}, or {@code floor(capacityTokens / blockTokens)}
     *                         for a token capacity; {@code -1} for the ideal cache
     * @param capacityTokens   the token capacity given, or {@code capacityBlocks * blockTokens} for a fraction; {@code -1} for
     *                         the ideal cache and when block sizes differ
     * @param hitBlocks        sum over requests of the longest present prefix of its blocks
     * @param totalBlocks      sum over requests of its blocks
     * @param hitTokens        sum over requests of {@code min(blockTokens * hit blocks, input tokens)}
     * @param totalTokens      sum over requests of its input tokens
     */
    public record CacheHits(
            double capacityFraction,
            long capacityBlocks,
            long capacityTokens,
            long hitBlocks,
            long totalBlocks,
            long hitTokens,
            long totalTokens) {

        public boolean infinite() {
            return capacityBlocks < 0;
        }

        /** {@code hitBlocks / totalBlocks} (0 when there are no blocks). */
        public double blockHitRatio() {
            return totalBlocks == 0 ? 0 : (double) hitBlocks / totalBlocks;
        }

        /** {@code hitTokens / totalTokens} (0 when there are no tokens). */
        public double tokenHitRatio() {
            return totalTokens == 0 ? 0 : (double) hitTokens / totalTokens;
        }

        /** {@code 1 - blockHitRatio()}. */
        public double blockMissRatio() {
            return totalBlocks == 0 ? 0 : 1.0 - blockHitRatio();
        }
    }

    /**
     * Histogram of LRU stack distances: for each block access, in the order an LRU walks them, the number of distinct
     * other blocks accessed since the previous access to the same block. A block-level LRU of capacity {@code C}
     * would hit exactly the accesses with distance {@code < C}.
     *
     * @param accesses  all block accesses
     * @param cold      first accesses (no previous access; infinite distance)
     * @param buckets   power-of-two buckets {@code [from, to]} of the warm accesses, empty buckets left out
     * @param mean      mean distance of the warm accesses (0 when there are none)
     */
    public record ReuseDistances(long accesses, long cold, List<Bucket> buckets, double mean) {

        public ReuseDistances {
            buckets = List.copyOf(buckets);
        }

        /** Warm accesses with {@code from <= distance <= to}. */
        public record Bucket(long from, long to, long count) {}
    }
}
