package dev.kvlab.harness.api.catalog;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * Recompute against fetch for one prefix ({@link Breakeven.Result}), as {@code kvlab breakeven} reports it: the KV
 * bytes, both times (seconds, then milliseconds with recompute's compute and memory bounds), the winner and by how
 * much, and where fetching wins: from {@code breakevenPrefixTokens}, below {@code fetchAlsoWinsBelowTokens} (null
 * without such a floor), at a link of {@code breakevenLinkGbps} (null when no rate makes fetch win).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record BreakevenTimes(
        long kvBytes,
        long kvBytesPerRank,
        double recomputeSeconds,
        double fetchSeconds,
        double recomputeMs,
        double computeBoundMs,
        double memoryBoundMs,
        double fetchMs,
        boolean fetchWins,
        String winner,
        double speedupOfWinner,
        long breakevenPrefixTokens,
        int maxContext,
        Long fetchAlsoWinsBelowTokens,
        Double breakevenLinkGbps) {

    /** Result {@code r} for a model of {@code maxContext} tokens. */
    public static BreakevenTimes of(Breakeven.Result r, int maxContext) {
        return new BreakevenTimes(
                r.kvBytes(),
                r.kvBytesPerRank(),
                r.recomputeSeconds(),
                r.fetchSeconds(),
                r.recomputeSeconds() * 1e3,
                r.computeSeconds() * 1e3,
                r.memorySeconds() * 1e3,
                r.fetchSeconds() * 1e3,
                r.fetchWins(),
                r.fetchWins() ? "fetch" : "recompute",
                r.fetchWins() ? r.recomputeSeconds() / r.fetchSeconds() : r.fetchSeconds() / r.recomputeSeconds(),
                r.breakevenTokens(),
                maxContext,
                !Double.isFinite(r.memoryFloorTokens()) ? null : (long) Math.ceil(r.memoryFloorTokens()),
                Double.isInfinite(r.breakevenBitsPerSecond()) ? null : r.breakevenBitsPerSecond() / 1e9);
    }
}
