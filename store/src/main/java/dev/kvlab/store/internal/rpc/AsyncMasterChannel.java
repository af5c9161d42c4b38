package dev.kvlab.store.internal.rpc;

import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.ReplicaList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The object calls of {@link MasterChannel} for event-driven callers: each returns at once and its future completes
 * with what the blocking call would return, or exceptionally with what it would throw (a dependent stage sees it
 * wrapped in a {@link java.util.concurrent.CompletionException}). Futures may complete on the channel's transport
 * thread: continuations must not block.
 */
public interface AsyncMasterChannel {

    CompletableFuture<List<PutStartResult>> putStartAsync(
            String tenant, List<String> keys, long[] lengths, int[] crcs, ReplicateConfig config);

    CompletableFuture<List<EndStatus>> putEndAsync(String tenant, List<String> keys, long[] putIds);

    /** The replica lists of {@code keys} (one lookup each, one call for all). */
    CompletableFuture<List<ReplicaList>> getReplicaListsAsync(String tenant, List<String> keys);
}
