package dev.kvlab.harness.api.catalog;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * A model's KV sizes at a dtype and tensor parallelism, as {@code kvlab plan} reports them: per token (once, per rank,
 * over all ranks with replication), per request of {@code requestTokens}, tokens per GiB, per block of
 * {@code blockTokens}, and what a store of {@code storeCapacityBytes} holds (whole tokens, blocks and requests).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record KvSizes(
        String dtype,
        int tp,
        long kvBytesPerToken,
        long kvBytesPerTokenPerRank,
        Integer kvHeadsPerRank,
        int kvReplication,
        long kvBytesPerTokenAllRanks,
        long requestTokens,
        long kvBytesPerRequest,
        long kvBytesPerRequestPerRank,
        double tokensPerGib,
        double tokensPerGibPerRank,
        int blockTokens,
        long blockBytes,
        long blockBytesPerRank,
        long storeCapacityBytes,
        long storeTokens,
        long storeBlocks,
        long storeRequests) {

    /** The sizes of {@code kv} at {@code dt} ({@code kvHeadsPerRank} null under MLA) for these lengths and capacity. */
    public static KvSizes of(Dtype dt, KvSizing kv, long tokens, int blockTokens, long capacityBytes) {
        return new KvSizes(
                dt.toString(),
                kv.tp(),
                kv.bytesPerToken(),
                kv.bytesPerTokenPerRank(),
                kv.shape().isMla() ? null : kv.kvHeadsPerRank(),
                kv.replication(),
                kv.bytesPerTokenAllRanks(),
                tokens,
                kv.bytesPerRequest(tokens),
                kv.bytesPerRequestPerRank(tokens),
                kv.tokensPerGiB(),
                kv.tokensPerGiBPerRank(),
                blockTokens,
                kv.blockBytes(blockTokens),
                kv.blockBytesPerRank(blockTokens),
                capacityBytes,
                capacityBytes / kv.bytesPerToken(),
                capacityBytes / kv.blockBytes(blockTokens),
                capacityBytes / kv.bytesPerRequest(tokens));
    }
}
