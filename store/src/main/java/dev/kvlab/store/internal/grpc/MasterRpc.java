package dev.kvlab.store.internal.grpc;

import com.google.protobuf.Message;
import dev.kvlab.store.internal.rpc.proto.EndReply;
import dev.kvlab.store.internal.rpc.proto.ExistsReply;
import dev.kvlab.store.internal.rpc.proto.GetReply;
import dev.kvlab.store.internal.rpc.proto.GetRequest;
import dev.kvlab.store.internal.rpc.proto.KeysRequest;
import dev.kvlab.store.internal.rpc.proto.MountReply;
import dev.kvlab.store.internal.rpc.proto.MountRequest;
import dev.kvlab.store.internal.rpc.proto.PingReply;
import dev.kvlab.store.internal.rpc.proto.PingRequest;
import dev.kvlab.store.internal.rpc.proto.PutEndRequest;
import dev.kvlab.store.internal.rpc.proto.PutStartReply;
import dev.kvlab.store.internal.rpc.proto.PutStartRequest;
import dev.kvlab.store.internal.rpc.proto.RemoveReply;
import dev.kvlab.store.internal.rpc.proto.RemoveRequest;
import dev.kvlab.store.internal.rpc.proto.UnmountReply;
import dev.kvlab.store.internal.rpc.proto.UnmountRequest;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.protobuf.ProtoUtils;

/**
 * The {@code kvlab.store.v1.KvMaster} gRPC service's method descriptors, written by hand (the gRPC codegen
 * binary is not available on this build machine); messages are the protoc-generated ones of
 * {@code kvlab_store.proto}, marshalled by {@link ProtoUtils}.
 */
public final class MasterRpc {

    public static final String SERVICE = "kvlab.store.v1.KvMaster";
    /** Upper bound of one control-plane message, both directions. */
    public static final int MAX_MESSAGE_BYTES = 4 << 20;
    /** Upper bound of the headers of one call. */
    public static final int MAX_METADATA_BYTES = 8 << 10;

    public static final MethodDescriptor<PingRequest, PingReply> PING =
            unary("Ping", PingRequest.getDefaultInstance(), PingReply.getDefaultInstance());
    public static final MethodDescriptor<MountRequest, MountReply> MOUNT =
            unary("Mount", MountRequest.getDefaultInstance(), MountReply.getDefaultInstance());
    public static final MethodDescriptor<UnmountRequest, UnmountReply> UNMOUNT =
            unary("Unmount", UnmountRequest.getDefaultInstance(), UnmountReply.getDefaultInstance());
    public static final MethodDescriptor<PutStartRequest, PutStartReply> PUT_START =
            unary("PutStart", PutStartRequest.getDefaultInstance(), PutStartReply.getDefaultInstance());
    public static final MethodDescriptor<PutEndRequest, EndReply> PUT_END =
            unary("PutEnd", PutEndRequest.getDefaultInstance(), EndReply.getDefaultInstance());
    public static final MethodDescriptor<PutEndRequest, EndReply> PUT_REVOKE =
            unary("PutRevoke", PutEndRequest.getDefaultInstance(), EndReply.getDefaultInstance());
    public static final MethodDescriptor<GetRequest, GetReply> GET_REPLICA_LIST =
            unary("GetReplicaList", GetRequest.getDefaultInstance(), GetReply.getDefaultInstance());
    public static final MethodDescriptor<KeysRequest, ExistsReply> EXISTS =
            unary("Exists", KeysRequest.getDefaultInstance(), ExistsReply.getDefaultInstance());
    public static final MethodDescriptor<RemoveRequest, RemoveReply> REMOVE =
            unary("Remove", RemoveRequest.getDefaultInstance(), RemoveReply.getDefaultInstance());
    public static final MethodDescriptor<
                    dev.kvlab.store.internal.rpc.proto.CorruptRequest, dev.kvlab.store.internal.rpc.proto.CorruptReply>
            REPORT_CORRUPT = unary(
                    "ReportCorrupt",
                    dev.kvlab.store.internal.rpc.proto.CorruptRequest.getDefaultInstance(),
                    dev.kvlab.store.internal.rpc.proto.CorruptReply.getDefaultInstance());

    public static final MethodDescriptor<
                    dev.kvlab.store.internal.rpc.proto.StatusRequest, dev.kvlab.store.internal.rpc.proto.StatusReply>
            STATUS = unary(
                    "Status",
                    dev.kvlab.store.internal.rpc.proto.StatusRequest.getDefaultInstance(),
                    dev.kvlab.store.internal.rpc.proto.StatusReply.getDefaultInstance());

    public static final ServiceDescriptor DESCRIPTOR = ServiceDescriptor.newBuilder(SERVICE)
            .addMethod(PING)
            .addMethod(MOUNT)
            .addMethod(UNMOUNT)
            .addMethod(PUT_START)
            .addMethod(PUT_END)
            .addMethod(PUT_REVOKE)
            .addMethod(GET_REPLICA_LIST)
            .addMethod(EXISTS)
            .addMethod(REMOVE)
            .addMethod(REPORT_CORRUPT)
            .addMethod(STATUS)
            .build();

    private MasterRpc() {}

    private static <A extends Message, B extends Message> MethodDescriptor<A, B> unary(String name, A req, B rep) {
        return MethodDescriptor.<A, B>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(ProtoUtils.marshaller(req))
                .setResponseMarshaller(ProtoUtils.marshaller(rep))
                .build();
    }
}
