package dev.kvlab.harness.benchmark.internal.master;

import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.MasterConnection;
import dev.kvlab.store.api.master.MountStatus;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.ReplicaList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/**
 * The one place where {@code kvlab bench master} measures: wraps a client's {@link MasterConnection} (its asynchronous
 * calls timed from issue to completion), times every
 * object call (nanoseconds, HdrHistogram {@link Recorder} per RPC) and counts the keys each call served
 * successfully (a put counts at its PutEnd; a lookup counts found and not-found answers, as Mooncake's
 * {@code master_bench} does). Only calls made while recording count. Thread-safe; shared by all clients.
 */
public final class MeasuredMasterChannel {

    /** The RPCs measured. */
    public enum Rpc {
        PUT_START,
        PUT_END,
        GET_REPLICA_LIST
    }

    private final Recorder[] latency = new Recorder[Rpc.values().length];
    private final LongAdder[] calls = new LongAdder[Rpc.values().length];
    final LongAdder okKeys = new LongAdder(), failedKeys = new LongAdder();
    private volatile boolean recording;

    public MeasuredMasterChannel() {
        for (Rpc r : Rpc.values()) {
            latency[r.ordinal()] = new Recorder(3_600_000_000_000L, 3);
            calls[r.ordinal()] = new LongAdder();
        }
    }

    public void recording(boolean on) {
        recording = on;
    }

    Recorder latency(Rpc r) {
        return latency[r.ordinal()];
    }

    long calls(Rpc r) {
        return calls[r.ordinal()].sum();
    }

    private void record(Rpc r, long t0, int ok, int failed) {
        if (!recording) return;
        latency[r.ordinal()].recordValue(Math.max(0, System.nanoTime() - t0));
        calls[r.ordinal()].increment();
        if (r != Rpc.PUT_START) okKeys.add(ok);
        failedKeys.add(failed);
    }

    private List<PutStartResult> starts(long t0, List<PutStartResult> r) {
        int ok = 0;
        for (PutStartResult s : r) if (s.status() == PutStartResult.Status.STARTED) ok++;
        record(Rpc.PUT_START, t0, ok, r.size() - ok);
        return r;
    }

    private List<EndStatus> ends(long t0, List<EndStatus> r) {
        int ok = 0;
        for (EndStatus s : r) if (s == EndStatus.OK) ok++;
        record(Rpc.PUT_END, t0, ok, r.size() - ok);
        return r;
    }

    private List<ReplicaList> lists(long t0, List<ReplicaList> r) {
        int ok = 0;
        for (ReplicaList l : r) if (l.status() != ReplicaList.Status.IN_PROGRESS) ok++;
        record(Rpc.GET_REPLICA_LIST, t0, ok, r.size() - ok);
        return r;
    }

    /** A view of {@code inner} (one client's connection) that records into this; asynchronous calls when each completes. */
    public MasterConnection wrap(MasterConnection inner) {
        return new MasterConnection() {
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
                long t0 = System.nanoTime();
                return starts(t0, inner.putStart(tenant, keys, lengths, crcs, config));
            }

            @Override
            public List<EndStatus> putEnd(String tenant, List<String> keys, long[] putIds) {
                long t0 = System.nanoTime();
                return ends(t0, inner.putEnd(tenant, keys, putIds));
            }

            @Override
            public ReplicaList getReplicaList(String tenant, String key) {
                long t0 = System.nanoTime();
                ReplicaList r = inner.getReplicaList(tenant, key);
                lists(t0, List.of(r));
                return r;
            }

            @Override
            public List<ReplicaList> getReplicaLists(String tenant, List<String> keys) {
                long t0 = System.nanoTime();
                return lists(t0, inner.getReplicaLists(tenant, keys));
            }

            @Override
            public CompletableFuture<List<PutStartResult>> putStartAsync(
                    String tenant, List<String> keys, long[] lengths, int[] crcs, ReplicateConfig config) {
                long t0 = System.nanoTime();
                return inner.putStartAsync(tenant, keys, lengths, crcs, config).thenApply(r -> starts(t0, r));
            }

            @Override
            public CompletableFuture<List<EndStatus>> putEndAsync(String tenant, List<String> keys, long[] putIds) {
                long t0 = System.nanoTime();
                return inner.putEndAsync(tenant, keys, putIds).thenApply(r -> ends(t0, r));
            }

            @Override
            public CompletableFuture<List<ReplicaList>> getReplicaListsAsync(String tenant, List<String> keys) {
                long t0 = System.nanoTime();
                return inner.getReplicaListsAsync(tenant, keys).thenApply(r -> lists(t0, r));
            }

            @Override
            public void close() {
                inner.close();
            }
        };
    }
}
