package dev.kvlab.store.internal.rpc;

import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.MountStatus;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.ReplicaList;
import java.util.List;

/**
 * The control plane as clients and nodes call it: in process ({@code MasterService} itself) or over gRPC.
 * Object calls carry the caller's tenant; the master confines them to it. Failures of the channel itself
 * (master unreachable, deadline) are thrown as {@link MasterUnavailableException}.
 */
public interface MasterChannel extends AutoCloseable {

    boolean ping(String clientId);

    MountStatus mount(String clientId, String segment, long size, String endpoint);

    boolean unmount(String clientId, String segment);

    List<PutStartResult> putStart(String tenant, List<String> keys, long[] lengths, int[] crcs, ReplicateConfig config);

    List<EndStatus> putEnd(String tenant, List<String> keys, long[] putIds);

    List<EndStatus> putRevoke(String tenant, List<String> keys, long[] putIds);

    ReplicaList getReplicaList(String tenant, String key);

    List<ReplicaList> getReplicaLists(String tenant, List<String> keys);

    boolean[] exists(String tenant, List<String> keys);

    RemoveStatus remove(String tenant, String key);

    /**
     * Reports that the replica of {@code key} at ({@code segment}, {@code offset}) failed verification on read; the
     * master drops it (see {@code StoreMaster.dropCorruptReplica}). True when a replica was dropped. Channels that
     * cannot report return false.
     */
    default boolean reportCorrupt(String tenant, String key, String segment, long offset) {
        return false;
    }

    /** What the master says of itself: its role in a replicated cluster, its term, what it holds. */
    default dev.kvlab.store.api.server.MasterStatus status() {
        throw new UnsupportedOperationException("this channel cannot ask the master's status");
    }

    @Override
    default void close() {}
}
