package dev.kvlab.store.api;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the store master's metadata logic. Defaults ({@link #defaults()}) are Mooncake's.
 *
 * @param shards          metadata shards by key hash [1024]
 * @param strategy        segment choice for new replicas [random]
 * @param seed            seed of the random strategy [0]
 * @param alignment       allocation granularity inside a segment, a power of two [64 bytes]
 * @param leaseTtl        lease granted by a replica lookup [10 s]
 * @param softPinTtl      how long a soft pin protects an object after its last write or read [30 min]
 * @param discardTimeout  a PROCESSING put older than this may be taken over by another writer [30 s]
 * @param releaseTimeout  the space of an abandoned put is reclaimed this long after its start [600 s]
 * @param highWatermark   usage fraction above which eviction runs [0.90]
 * @param evictionRatio   each eviction run frees at least this fraction of capacity [0.05]
 * @param clientTtl       a client silent this long is dropped with its segments and their replicas [10 s]
 */
public record MasterConfig(
        int shards,
        AllocationStrategy strategy,
        long seed,
        long alignment,
        Duration leaseTtl,
        Duration softPinTtl,
        Duration discardTimeout,
        Duration releaseTimeout,
        double highWatermark,
        double evictionRatio,
        Duration clientTtl) {

    public MasterConfig {
        if (shards < 1) throw new IllegalArgumentException("shards must be >= 1, got " + shards);
        Objects.requireNonNull(strategy, "strategy");
        if (alignment <= 0 || Long.bitCount(alignment) != 1)
            throw new IllegalArgumentException("alignment must be a power of two, got " + alignment);
        for (Duration d : new Duration[] {leaseTtl, softPinTtl, discardTimeout, releaseTimeout, clientTtl})
            if (d == null || d.isNegative()) throw new IllegalArgumentException("timeouts must be >= 0");
        if (!(highWatermark > 0 && highWatermark <= 1))
            throw new IllegalArgumentException("high watermark must be in (0, 1], got " + highWatermark);
        if (!(evictionRatio > 0 && evictionRatio <= 1))
            throw new IllegalArgumentException("eviction ratio must be in (0, 1], got " + evictionRatio);
    }

    public static MasterConfig defaults() {
        return new MasterConfig(
                1024,
                AllocationStrategy.RANDOM,
                0L,
                64,
                Duration.ofSeconds(10),
                Duration.ofMinutes(30),
                Duration.ofSeconds(30),
                Duration.ofSeconds(600),
                0.90,
                0.05,
                Duration.ofSeconds(10));
    }

    public MasterConfig withStrategy(AllocationStrategy v) {
        return new MasterConfig(
                shards,
                v,
                seed,
                alignment,
                leaseTtl,
                softPinTtl,
                discardTimeout,
                releaseTimeout,
                highWatermark,
                evictionRatio,
                clientTtl);
    }

    public MasterConfig withSeed(long v) {
        return new MasterConfig(
                shards,
                strategy,
                v,
                alignment,
                leaseTtl,
                softPinTtl,
                discardTimeout,
                releaseTimeout,
                highWatermark,
                evictionRatio,
                clientTtl);
    }

    public MasterConfig withAlignment(long v) {
        return new MasterConfig(
                shards,
                strategy,
                seed,
                v,
                leaseTtl,
                softPinTtl,
                discardTimeout,
                releaseTimeout,
                highWatermark,
                evictionRatio,
                clientTtl);
    }

    public MasterConfig withLeaseTtl(Duration v) {
        return new MasterConfig(
                shards,
                strategy,
                seed,
                alignment,
                v,
                softPinTtl,
                discardTimeout,
                releaseTimeout,
                highWatermark,
                evictionRatio,
                clientTtl);
    }

    public MasterConfig withSoftPinTtl(Duration v) {
        return new MasterConfig(
                shards,
                strategy,
                seed,
                alignment,
                leaseTtl,
                v,
                discardTimeout,
                releaseTimeout,
                highWatermark,
                evictionRatio,
                clientTtl);
    }

    public MasterConfig withDiscardTimeout(Duration v) {
        return new MasterConfig(
                shards,
                strategy,
                seed,
                alignment,
                leaseTtl,
                softPinTtl,
                v,
                releaseTimeout,
                highWatermark,
                evictionRatio,
                clientTtl);
    }

    public MasterConfig withReleaseTimeout(Duration v) {
        return new MasterConfig(
                shards,
                strategy,
                seed,
                alignment,
                leaseTtl,
                softPinTtl,
                discardTimeout,
                v,
                highWatermark,
                evictionRatio,
                clientTtl);
    }

    public MasterConfig withHighWatermark(double v) {
        return new MasterConfig(
                shards,
                strategy,
                seed,
                alignment,
                leaseTtl,
                softPinTtl,
                discardTimeout,
                releaseTimeout,
                v,
                evictionRatio,
                clientTtl);
    }

    public MasterConfig withEvictionRatio(double v) {
        return new MasterConfig(
                shards,
                strategy,
                seed,
                alignment,
                leaseTtl,
                softPinTtl,
                discardTimeout,
                releaseTimeout,
                highWatermark,
                v,
                clientTtl);
    }

    public MasterConfig withClientTtl(Duration v) {
        return new MasterConfig(
                shards,
                strategy,
                seed,
                alignment,
                leaseTtl,
                softPinTtl,
                discardTimeout,
                releaseTimeout,
                highWatermark,
                evictionRatio,
                v);
    }
}
