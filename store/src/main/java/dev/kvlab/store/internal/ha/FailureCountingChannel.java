package dev.kvlab.store.internal.ha;

import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.MountStatus;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.api.server.MasterStatus;
import dev.kvlab.store.internal.rpc.MasterChannel;
import dev.kvlab.store.internal.rpc.MasterUnavailableException;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * A {@link MasterChannel} that tells, for every object call that found no master ({@link MasterUnavailableException}),
 * how many keys it carried: the blocks a client could not look up, fetch or put then (a failover's cost; the store
 * client turns such a failure into a miss or a failed put, so its caller cannot tell them from others).
 */
final class FailureCountingChannel implements MasterChannel {

    private final MasterChannel inner;
    private final LongConsumer failedKeys;

    FailureCountingChannel(MasterChannel inner, LongConsumer failedKeys) {
        this.inner = inner;
        this.failedKeys = failedKeys;
    }

    private <T> T counted(int keys, Supplier<T> call) {
        try {
            return call.get();
        } catch (MasterUnavailableException e) {
            failedKeys.accept(keys);
            throw e;
        }
    }

    @Override
    public boolean ping(String clientId) {
        return inner.ping(clientId);
    }

    @Override
    public MountStatus mount(String clientId, String segment, long size, String endpoint) {
        return inner.mount(clientId, segment, size, endpoint);
    }

    @Override
    public boolean unmount(String clientId, String segment) {
        return inner.unmount(clientId, segment);
    }

    @Override
    public List<PutStartResult> putStart(
            String tenant, List<String> keys, long[] lengths, int[] crcs, ReplicateConfig config) {
        return counted(keys.size(), () -> inner.putStart(tenant, keys, lengths, crcs, config));
    }

    @Override
    public List<EndStatus> putEnd(String tenant, List<String> keys, long[] putIds) {
        return counted(keys.size(), () -> inner.putEnd(tenant, keys, putIds));
    }

    @Override
    public List<EndStatus> putRevoke(String tenant, List<String> keys, long[] putIds) {
        return inner.putRevoke(tenant, keys, putIds);
    }

    @Override
    public ReplicaList getReplicaList(String tenant, String key) {
        return counted(1, () -> inner.getReplicaList(tenant, key));
    }

    @Override
    public List<ReplicaList> getReplicaLists(String tenant, List<String> keys) {
        return counted(keys.size(), () -> inner.getReplicaLists(tenant, keys));
    }

    @Override
    public boolean[] exists(String tenant, List<String> keys) {
        return counted(keys.size(), () -> inner.exists(tenant, keys));
    }

    @Override
    public RemoveStatus remove(String tenant, String key) {
        return counted(1, () -> inner.remove(tenant, key));
    }

    @Override
    public boolean reportCorrupt(String tenant, String key, String segment, long offset) {
        return inner.reportCorrupt(tenant, key, segment, offset);
    }

    @Override
    public MasterStatus status() {
        return inner.status();
    }

    @Override
    public void close() {
        inner.close();
    }
}
