package dev.kvlab.store.internal.grpc;

import com.google.protobuf.Message;
import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.MasterConnection;
import dev.kvlab.store.api.master.MountStatus;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.internal.rpc.AsyncMasterChannel;
import dev.kvlab.store.internal.rpc.MasterChannel;
import dev.kvlab.store.internal.rpc.MasterUnavailableException;
import dev.kvlab.store.internal.rpc.proto.EndReply;
import dev.kvlab.store.internal.rpc.proto.ExistsReply;
import dev.kvlab.store.internal.rpc.proto.GetReply;
import dev.kvlab.store.internal.rpc.proto.GetRequest;
import dev.kvlab.store.internal.rpc.proto.KeysRequest;
import dev.kvlab.store.internal.rpc.proto.MountRequest;
import dev.kvlab.store.internal.rpc.proto.PingRequest;
import dev.kvlab.store.internal.rpc.proto.PutEndRequest;
import dev.kvlab.store.internal.rpc.proto.PutStartEntry;
import dev.kvlab.store.internal.rpc.proto.PutStartReply;
import dev.kvlab.store.internal.rpc.proto.PutStartRequest;
import dev.kvlab.store.internal.rpc.proto.RemoveRequest;
import dev.kvlab.store.internal.rpc.proto.ReplicaListMsg;
import dev.kvlab.store.internal.rpc.proto.UnmountRequest;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@link MasterChannel} over gRPC to a master at {@code host:port}: unary calls with a deadline each, blocking, or
 * ({@link AsyncMasterChannel}) completing on the transport thread without a thread handoff; to code outside the store, a
 * {@link MasterConnection}.
 */
public final class GrpcMasterChannel implements MasterChannel, AsyncMasterChannel, MasterConnection {

    private static final long RECONNECT_WAIT_NANOS = 500_000_000L;

    private final ManagedChannel channel;
    private final CallOptions base;
    private final long deadlineNanos;
    private final String target;

    public GrpcMasterChannel(String host, int port, Duration deadline, String token) {
        this.target = host + ":" + port;
        this.channel = NettyChannelBuilder.forAddress(host, port)
                .usePlaintext()
                .directExecutor()
                .maxInboundMessageSize(MasterRpc.MAX_MESSAGE_BYTES)
                .maxInboundMetadataSize(MasterRpc.MAX_METADATA_BYTES)
                .build();
        this.base =
                token == null ? CallOptions.DEFAULT : CallOptions.DEFAULT.withCallCredentials(TokenAuth.bearer(token));
        this.deadlineNanos = deadline.toNanos();
    }

    private <Q extends Message, R extends Message> R call(MethodDescriptor<Q, R> m, Q req) {
        try {
            return ClientCalls.blockingUnaryCall(
                    channel, m, base.withDeadlineAfter(deadlineNanos, TimeUnit.NANOSECONDS), req);
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() != Status.Code.UNAVAILABLE) throw translate(e);
        }
        // the connection is down (e.g. the master restarted): reconnect now instead of after gRPC's backoff, and wait
        // for it briefly
        channel.resetConnectBackoff();
        try {
            return ClientCalls.blockingUnaryCall(channel, m, reconnectOptions(), req);
        } catch (StatusRuntimeException e) {
            throw translate(e);
        }
    }

    private CallOptions reconnectOptions() {
        return base.withWaitForReady()
                .withDeadlineAfter(Math.min(deadlineNanos, RECONNECT_WAIT_NANOS), TimeUnit.NANOSECONDS);
    }

    /** {@link #call} without blocking: the same deadline and the same one reconnect on UNAVAILABLE; completes on the transport thread. */
    private <Q extends Message, R extends Message> CompletableFuture<R> callAsync(MethodDescriptor<Q, R> m, Q req) {
        CompletableFuture<R> f = new CompletableFuture<>();
        startAsync(m, req, base.withDeadlineAfter(deadlineNanos, TimeUnit.NANOSECONDS), true, f);
        return f;
    }

    private <Q extends Message, R extends Message> void startAsync(
            MethodDescriptor<Q, R> m, Q req, CallOptions opts, boolean first, CompletableFuture<R> f) {
        try {
            ClientCalls.asyncUnaryCall(channel.newCall(m, opts), req, observer(m, req, first, f));
        } catch (RuntimeException e) { // a call that could not even start (e.g. the channel is shut down)
            f.completeExceptionally(e);
        }
    }

    private <Q extends Message, R extends Message> StreamObserver<R> observer(
            MethodDescriptor<Q, R> m, Q req, boolean first, CompletableFuture<R> f) {
        return new StreamObserver<>() {
            private R reply;

            @Override
            public void onNext(R r) {
                reply = r;
            }

            @Override
            public void onError(Throwable t) {
                if (!(t instanceof StatusRuntimeException e)) {
                    f.completeExceptionally(t);
                } else if (first && e.getStatus().getCode() == Status.Code.UNAVAILABLE) {
                    channel.resetConnectBackoff();
                    startAsync(m, req, reconnectOptions(), false, f);
                } else {
                    f.completeExceptionally(translate(e));
                }
            }

            @Override
            public void onCompleted() {
                f.complete(reply);
            }
        };
    }

    private RuntimeException translate(StatusRuntimeException e) {
        Status.Code c = e.getStatus().getCode();
        if (c == Status.Code.INVALID_ARGUMENT)
            return new IllegalArgumentException(e.getStatus().getDescription(), e);
        if (c == Status.Code.UNAUTHENTICATED)
            return new SecurityException(
                    "master " + target + " refused the call: " + e.getStatus().getDescription(), e);
        if (c == Status.Code.FAILED_PRECONDITION)
            return new dev.kvlab.store.internal.rpc.NotLeaderException(
                    "master " + target + ": " + e.getStatus().getDescription());
        return new MasterUnavailableException(
                "master " + target + ": " + c
                        + (e.getStatus().getDescription() == null
                                ? ""
                                : " " + e.getStatus().getDescription()),
                e);
    }

    @Override
    public boolean ping(String clientId) {
        return call(
                        MasterRpc.PING,
                        PingRequest.newBuilder().setClientId(clientId).build())
                .getKnown();
    }

    @Override
    public MountStatus mount(String clientId, String segment, long size, String endpoint) {
        return MountStatus.valueOf(call(
                        MasterRpc.MOUNT,
                        MountRequest.newBuilder()
                                .setClientId(clientId)
                                .setSegment(segment)
                                .setSize(size)
                                .setEndpoint(endpoint)
                                .build())
                .getStatus());
    }

    @Override
    public boolean unmount(String clientId, String segment) {
        return call(
                        MasterRpc.UNMOUNT,
                        UnmountRequest.newBuilder()
                                .setClientId(clientId)
                                .setSegment(segment)
                                .build())
                .getUnmounted();
    }

    @Override
    public List<PutStartResult> putStart(
            String tenant, List<String> keys, long[] lengths, int[] crcs, ReplicateConfig config) {
        return started(call(MasterRpc.PUT_START, putStartRequest(tenant, keys, lengths, crcs, config)), keys.size());
    }

    @Override
    public CompletableFuture<List<PutStartResult>> putStartAsync(
            String tenant, List<String> keys, long[] lengths, int[] crcs, ReplicateConfig config) {
        int n = keys.size();
        return callAsync(MasterRpc.PUT_START, putStartRequest(tenant, keys, lengths, crcs, config))
                .thenApply(r -> started(r, n));
    }

    private static PutStartRequest putStartRequest(
            String tenant, List<String> keys, long[] lengths, int[] crcs, ReplicateConfig config) {
        PutStartRequest.Builder b =
                PutStartRequest.newBuilder().setTenant(tenant).addAllKeys(keys).setConfig(WireCodec.encode(config));
        for (long l : lengths) b.addLengths(l);
        for (int c : crcs) b.addCrcs(c);
        return b.build();
    }

    private static List<PutStartResult> started(PutStartReply r, int n) {
        if (r.getEntriesCount() != n)
            throw new MasterUnavailableException(
                    "master answered " + r.getEntriesCount() + " entries for " + n + " keys", null);
        List<PutStartResult> out = new ArrayList<>(n);
        for (PutStartEntry e : r.getEntriesList()) out.add(WireCodec.decode(e));
        return out;
    }

    @Override
    public List<EndStatus> putEnd(String tenant, List<String> keys, long[] putIds) {
        return ends(call(MasterRpc.PUT_END, endRequest(tenant, keys, putIds)), keys.size());
    }

    @Override
    public CompletableFuture<List<EndStatus>> putEndAsync(String tenant, List<String> keys, long[] putIds) {
        int n = keys.size();
        return callAsync(MasterRpc.PUT_END, endRequest(tenant, keys, putIds)).thenApply(r -> ends(r, n));
    }

    @Override
    public List<EndStatus> putRevoke(String tenant, List<String> keys, long[] putIds) {
        return ends(call(MasterRpc.PUT_REVOKE, endRequest(tenant, keys, putIds)), keys.size());
    }

    private static PutEndRequest endRequest(String tenant, List<String> keys, long[] ids) {
        PutEndRequest.Builder b = PutEndRequest.newBuilder().setTenant(tenant).addAllKeys(keys);
        for (long id : ids) b.addPutIds(id);
        return b.build();
    }

    private static List<EndStatus> ends(EndReply r, int n) {
        if (r.getOkCount() != n)
            throw new MasterUnavailableException(
                    "master answered " + r.getOkCount() + " results for " + n + " keys", null);
        List<EndStatus> out = new ArrayList<>(n);
        for (boolean ok : r.getOkList()) out.add(ok ? EndStatus.OK : EndStatus.NOT_FOUND);
        return out;
    }

    @Override
    public ReplicaList getReplicaList(String tenant, String key) {
        GetReply r = call(
                MasterRpc.GET_REPLICA_LIST,
                GetRequest.newBuilder().setTenant(tenant).addKeys(key).build());
        if (r.getListsCount() != 1)
            throw new MasterUnavailableException("master answered " + r.getListsCount() + " lists for 1 key", null);
        return WireCodec.decode(r.getLists(0));
    }

    @Override
    public List<ReplicaList> getReplicaLists(String tenant, List<String> keys) {
        return lists(
                call(
                        MasterRpc.GET_REPLICA_LIST,
                        GetRequest.newBuilder()
                                .setTenant(tenant)
                                .addAllKeys(keys)
                                .build()),
                keys.size());
    }

    @Override
    public CompletableFuture<List<ReplicaList>> getReplicaListsAsync(String tenant, List<String> keys) {
        int n = keys.size();
        return callAsync(
                        MasterRpc.GET_REPLICA_LIST,
                        GetRequest.newBuilder()
                                .setTenant(tenant)
                                .addAllKeys(keys)
                                .build())
                .thenApply(r -> lists(r, n));
    }

    private static List<ReplicaList> lists(GetReply r, int n) {
        if (r.getListsCount() != n)
            throw new MasterUnavailableException(
                    "master answered " + r.getListsCount() + " lists for " + n + " keys", null);
        List<ReplicaList> out = new ArrayList<>(n);
        for (ReplicaListMsg m : r.getListsList()) out.add(WireCodec.decode(m));
        return out;
    }

    @Override
    public boolean[] exists(String tenant, List<String> keys) {
        ExistsReply r = call(
                MasterRpc.EXISTS,
                KeysRequest.newBuilder().setTenant(tenant).addAllKeys(keys).build());
        if (r.getExistsCount() != keys.size())
            throw new MasterUnavailableException(
                    "master answered " + r.getExistsCount() + " for " + keys.size() + " keys", null);
        boolean[] out = new boolean[keys.size()];
        for (int i = 0; i < out.length; i++) out[i] = r.getExists(i);
        return out;
    }

    @Override
    public RemoveStatus remove(String tenant, String key) {
        return RemoveStatus.valueOf(call(
                        MasterRpc.REMOVE,
                        RemoveRequest.newBuilder().setTenant(tenant).setKey(key).build())
                .getStatus());
    }

    @Override
    public boolean reportCorrupt(String tenant, String key, String segment, long offset) {
        return call(
                        MasterRpc.REPORT_CORRUPT,
                        dev.kvlab.store.internal.rpc.proto.CorruptRequest.newBuilder()
                                .setTenant(tenant)
                                .setKey(key)
                                .setSegment(segment)
                                .setOffset(offset)
                                .build())
                .getDropped();
    }

    @Override
    public dev.kvlab.store.api.server.MasterStatus status() {
        dev.kvlab.store.internal.rpc.proto.StatusReply r =
                call(MasterRpc.STATUS, dev.kvlab.store.internal.rpc.proto.StatusRequest.getDefaultInstance());
        return new dev.kvlab.store.api.server.MasterStatus(
                r.getRole(),
                r.getName(),
                r.getTerm(),
                r.getLeader(),
                r.getLeaderAddress(),
                r.getAppliedSeq(),
                r.getObjects(),
                r.getSegments());
    }

    /** The address this channel calls ({@code HOST:PORT}). */
    public String target() {
        return target;
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
