package dev.kvlab.store.internal.grpc;

import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.MountStatus;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.internal.rpc.proto.EndReply;
import dev.kvlab.store.internal.rpc.proto.ExistsReply;
import dev.kvlab.store.internal.rpc.proto.GetReply;
import dev.kvlab.store.internal.rpc.proto.MountReply;
import dev.kvlab.store.internal.rpc.proto.PingReply;
import dev.kvlab.store.internal.rpc.proto.PutEndRequest;
import dev.kvlab.store.internal.rpc.proto.PutStartReply;
import dev.kvlab.store.internal.rpc.proto.RemoveReply;
import dev.kvlab.store.internal.rpc.proto.UnmountReply;
import dev.kvlab.store.internal.server.Loopback;
import dev.kvlab.store.internal.server.MasterService;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The master's gRPC server: {@link MasterService} on {@code host:port}, messages bounded by
 * {@link MasterRpc#MAX_MESSAGE_BYTES}, handlers run on the transport threads (they only take short locks).
 * A non-loopback bind requires an auth token.
 */
public final class MasterServer implements AutoCloseable {

    private final Server server;

    private MasterServer(Server server) {
        this.server = server;
    }

    /** Binds and starts; {@code token} may be null only on loopback. Port 0 picks a free one. */
    public static MasterServer start(MasterService service, String host, int port, String token) throws IOException {
        if (token == null && !Loopback.only(host))
            throw new IllegalArgumentException(
                    "binding the master to " + host + " (not loopback) needs an auth token (KVLAB_STORE_TOKEN)");
        ServerServiceDefinition def = definition(service);
        if (token != null) def = ServerInterceptors.intercept(def, TokenAuth.require(token));
        Server s = NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
                .directExecutor()
                .maxInboundMessageSize(MasterRpc.MAX_MESSAGE_BYTES)
                .maxInboundMetadataSize(MasterRpc.MAX_METADATA_BYTES)
                .addService(def)
                .build()
                .start();
        return new MasterServer(s);
    }

    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.shutdown();
        try {
            if (!server.awaitTermination(2, TimeUnit.SECONDS)) server.shutdownNow();
        } catch (InterruptedException e) {
            server.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    public void awaitTermination() throws InterruptedException {
        server.awaitTermination();
    }

    static ServerServiceDefinition definition(MasterService m) {
        ServerServiceDefinition.Builder d = ServerServiceDefinition.builder(MasterRpc.DESCRIPTOR);
        add(
                d,
                MasterRpc.PING,
                r -> PingReply.newBuilder().setKnown(m.ping(r.getClientId())).build());
        add(d, MasterRpc.MOUNT, r -> {
            MountStatus s = m.mount(r.getClientId(), r.getSegment(), r.getSize(), r.getEndpoint());
            return MountReply.newBuilder().setStatus(s.name()).build();
        });
        add(
                d,
                MasterRpc.UNMOUNT,
                r -> UnmountReply.newBuilder()
                        .setUnmounted(m.unmount(r.getClientId(), r.getSegment()))
                        .build());
        add(d, MasterRpc.PUT_START, r -> {
            long[] lengths =
                    r.getLengthsList().stream().mapToLong(Long::longValue).toArray();
            int[] crcs = r.getCrcsList().stream().mapToInt(Integer::intValue).toArray();
            List<PutStartResult> rs =
                    m.putStart(r.getTenant(), r.getKeysList(), lengths, crcs, WireCodec.decode(r.getConfig()));
            PutStartReply.Builder b = PutStartReply.newBuilder();
            for (PutStartResult x : rs) b.addEntries(WireCodec.encode(x));
            return b.build();
        });
        add(d, MasterRpc.PUT_END, r -> ends(m.putEnd(r.getTenant(), r.getKeysList(), ids(r))));
        add(d, MasterRpc.PUT_REVOKE, r -> ends(m.putRevoke(r.getTenant(), r.getKeysList(), ids(r))));
        add(d, MasterRpc.GET_REPLICA_LIST, r -> {
            GetReply.Builder b = GetReply.newBuilder();
            if (r.getKeysCount() == 1) {
                b.addLists(WireCodec.encode(m.getReplicaList(r.getTenant(), r.getKeys(0))));
            } else {
                for (ReplicaList l : m.getReplicaLists(r.getTenant(), r.getKeysList())) b.addLists(WireCodec.encode(l));
            }
            return b.build();
        });
        add(d, MasterRpc.EXISTS, r -> {
            ExistsReply.Builder b = ExistsReply.newBuilder();
            for (boolean e : m.exists(r.getTenant(), r.getKeysList())) b.addExists(e);
            return b.build();
        });
        add(d, MasterRpc.REMOVE, r -> {
            RemoveStatus s = m.remove(r.getTenant(), r.getKey());
            return RemoveReply.newBuilder().setStatus(s.name()).build();
        });
        add(
                d,
                MasterRpc.REPORT_CORRUPT,
                r -> dev.kvlab.store.internal.rpc.proto.CorruptReply.newBuilder()
                        .setDropped(m.reportCorrupt(r.getTenant(), r.getKey(), r.getSegment(), r.getOffset()))
                        .build());
        add(d, MasterRpc.STATUS, r -> {
            dev.kvlab.store.api.server.MasterStatus st = m.status();
            return dev.kvlab.store.internal.rpc.proto.StatusReply.newBuilder()
                    .setRole(st.role())
                    .setName(st.name())
                    .setTerm(st.term())
                    .setLeader(st.leader())
                    .setLeaderAddress(st.leaderAddress())
                    .setAppliedSeq(st.appliedSeq())
                    .setObjects(st.objects())
                    .setSegments(st.segments())
                    .build();
        });
        return d.build();
    }

    private static long[] ids(PutEndRequest r) {
        return r.getPutIdsList().stream().mapToLong(Long::longValue).toArray();
    }

    private static EndReply ends(List<EndStatus> es) {
        EndReply.Builder b = EndReply.newBuilder();
        for (EndStatus e : es) b.addOk(e == EndStatus.OK);
        return b.build();
    }

    private static <Q, R> void add(
            ServerServiceDefinition.Builder d, io.grpc.MethodDescriptor<Q, R> m, Function<Q, R> f) {
        d.addMethod(m, ServerCalls.asyncUnaryCall((Q req, StreamObserver<R> obs) -> {
            R reply;
            try {
                reply = f.apply(req);
            } catch (IllegalArgumentException e) {
                obs.onError(
                        Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
                return;
            } catch (dev.kvlab.store.internal.rpc.NotLeaderException e) {
                obs.onError(Status.FAILED_PRECONDITION
                        .withDescription(e.getMessage())
                        .asRuntimeException());
                return;
            } catch (RuntimeException e) {
                obs.onError(Status.INTERNAL
                        .withDescription(String.valueOf(e.getMessage()))
                        .asRuntimeException());
                return;
            }
            obs.onNext(reply);
            obs.onCompleted();
        }));
    }
}
