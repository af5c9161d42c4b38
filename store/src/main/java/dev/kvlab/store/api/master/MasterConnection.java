package dev.kvlab.store.api.master;

import dev.kvlab.store.api.ReplicateConfig;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One client's connection to a master over gRPC ({@code dev.kvlab.store.Masters.connect}), as a benchmark of the
 * master drives it: a node's calls (mount, ping, unmount) and a client's object calls, blocking or asynchronous. Object
 * calls carry the caller's tenant. A blocking call that cannot reach the master throws; an asynchronous one returns at
 * once and its future completes with what the blocking call would return, or exceptionally with what it would throw (a
 * dependent stage sees it wrapped in a {@link java.util.concurrent.CompletionException}); futures may complete on the
 * connection's transport thread, so continuations must not block.
 */
public interface MasterConnection extends AutoCloseable {

    /** Keeps {@code clientId}'s segments alive; false when the master does not know the client. */
    boolean ping(String clientId);

    MountStatus mount(String clientId, String segment, long size, String endpoint);

    boolean unmount(String clientId, String segment);

    List<PutStartResult> putStart(String tenant, List<String> keys, long[] lengths, int[] crcs, ReplicateConfig config);

    List<EndStatus> putEnd(String tenant, List<String> keys, long[] putIds);

    ReplicaList getReplicaList(String tenant, String key);

    List<ReplicaList> getReplicaLists(String tenant, List<String> keys);

    CompletableFuture<List<PutStartResult>> putStartAsync(
            String tenant, List<String> keys, long[] lengths, int[] crcs, ReplicateConfig config);

    CompletableFuture<List<EndStatus>> putEndAsync(String tenant, List<String> keys, long[] putIds);

    /** The replica lists of {@code keys} (one lookup each, one call for all). */
    CompletableFuture<List<ReplicaList>> getReplicaListsAsync(String tenant, List<String> keys);

    @Override
    void close();
}
