package dev.kvlab.store.internal.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.MasterStats;
import dev.kvlab.store.api.master.SegmentInfo;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.rpc.proto.EndReply;
import dev.kvlab.store.internal.rpc.proto.ExistsReply;
import dev.kvlab.store.internal.rpc.proto.GetReply;
import dev.kvlab.store.internal.rpc.proto.GetRequest;
import dev.kvlab.store.internal.rpc.proto.KeysRequest;
import dev.kvlab.store.internal.rpc.proto.MountRequest;
import dev.kvlab.store.internal.rpc.proto.PingRequest;
import dev.kvlab.store.internal.rpc.proto.PutEndRequest;
import dev.kvlab.store.internal.rpc.proto.PutStartReply;
import dev.kvlab.store.internal.rpc.proto.PutStartRequest;
import dev.kvlab.store.internal.rpc.proto.RemoveRequest;
import dev.kvlab.store.internal.rpc.proto.ReplicateConfigMsg;
import dev.kvlab.store.internal.rpc.proto.UnmountRequest;
import dev.kvlab.store.internal.server.MasterService;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store master's control plane against a hostile client, over a real loopback gRPC server built like
 * {@link MasterServer} (same message and metadata bounds): each input is a short sequence of calls whose request
 * bytes are either raw fuzz or well-formed messages with fuzzed fields (tenants, keys, lengths, ids, configs), sent
 * through a byte-level channel so the server's own protobuf decoding runs. A request that decodes must get an
 * answer or {@code INVALID_ARGUMENT}, never {@code INTERNAL}/{@code UNKNOWN} (an unexpected exception in the
 * handler); answers carry one entry per key; the master's books stay sane (used space within capacity, no
 * negative counts). Each input gets a fresh master. Regression inputs: {@code MasterServiceFuzzTestInputs/}.
 *
 * <p>Fuzz for real: {@code JAZZER_FUZZ=1 mvn -pl store test -Dtest=MasterServiceFuzzTest -Djazzer.max_duration=10m}.
 */
class MasterServiceFuzzTest {

    private static final String[] METHODS = {
        "Ping", "Mount", "Unmount", "PutStart", "PutEnd", "PutRevoke", "GetReplicaList", "Exists", "Remove"
    };
    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    private static volatile ServerServiceDefinition current;
    private static volatile MasterService service;
    private static Server server;
    private static ManagedChannel channel;

    @BeforeAll
    static void start() throws IOException {
        fresh();
        ServerServiceDefinition.Builder d = ServerServiceDefinition.builder(MasterRpc.DESCRIPTOR);
        for (ServerMethodDefinition<?, ?> m : current.getMethods()) d.addMethod(delegate(m));
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .directExecutor()
                .maxInboundMessageSize(MasterRpc.MAX_MESSAGE_BYTES)
                .maxInboundMetadataSize(MasterRpc.MAX_METADATA_BYTES)
                .addService(d.build())
                .build()
                .start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .usePlaintext()
                .directExecutor()
                .maxInboundMessageSize(MasterRpc.MAX_MESSAGE_BYTES)
                .build();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    }

    /** A method whose handler is the current master's, looked up per call (a fresh master per input, one server). */
    @SuppressWarnings("unchecked")
    private static <Q, R> ServerMethodDefinition<Q, R> delegate(ServerMethodDefinition<Q, R> m) {
        String name = m.getMethodDescriptor().getFullMethodName();
        ServerCallHandler<Q, R> h = new ServerCallHandler<>() {
            @Override
            public ServerCall.Listener<Q> startCall(ServerCall<Q, R> call, Metadata headers) {
                ServerMethodDefinition<Q, R> now = (ServerMethodDefinition<Q, R>) current.getMethod(name);
                return now.getServerCallHandler().startCall(call, headers);
            }
        };
        return ServerMethodDefinition.create(m.getMethodDescriptor(), h);
    }

    private static void fresh() {
        service = new MasterService(
                new StoreMaster(
                        new MasterConfig(
                                16,
                                dev.kvlab.store.api.AllocationStrategy.RANDOM,
                                1L,
                                64,
                                java.time.Duration.ofSeconds(10),
                                java.time.Duration.ofMinutes(30),
                                java.time.Duration.ofSeconds(30),
                                java.time.Duration.ofSeconds(600),
                                0.9,
                                0.05,
                                java.time.Duration.ofSeconds(10)),
                        Clock.systemUTC()),
                new SimpleMeterRegistry());
        service.mount("node-a", "seg-a", 1 << 20, "tcp://127.0.0.1:1/seg-a?size=1048576");
        service.mount("node-b", "seg-b", 1 << 20, "tcp://127.0.0.1:2/seg-b?size=1048576");
        current = MasterServer.definition(service);
    }

    private static MethodDescriptor<byte[], byte[]> raw(String method) {
        return MethodDescriptor.newBuilder(BYTES, BYTES)
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(MasterRpc.SERVICE, method))
                .build();
    }

    @FuzzTest(maxDuration = "5m")
    void hostileControlPlaneCalls(FuzzedDataProvider data) {
        allowLoopback();
        fresh();
        int calls = data.consumeInt(1, 6);
        for (int c = 0; c < calls && data.remainingBytes() > 0; c++) {
            int m = data.consumeInt(0, METHODS.length - 1);
            byte[] body = data.consumeBoolean()
                    ? data.consumeBytes(data.consumeInt(0, 512))
                    : wellFormed(m, data).toByteArray();
            Message request;
            try {
                request = parse(m, body);
            } catch (InvalidProtocolBufferException e) {
                request = null;
            }
            byte[] reply;
            try {
                reply = ClientCalls.blockingUnaryCall(
                        channel, raw(METHODS[m]), CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), body);
            } catch (StatusRuntimeException e) {
                if (request != null) {
                    assertThat(e.getStatus().getCode())
                            .as(
                                    "%s(%s) must be answered or refused as bad input, not fail: %s",
                                    METHODS[m], request, e.getStatus())
                            .isEqualTo(Status.Code.INVALID_ARGUMENT);
                }
                continue;
            }
            assertThat(request)
                    .as("the server accepted bytes that are no %s request", METHODS[m])
                    .isNotNull();
            checkReply(m, request, reply);
        }
        MasterStats s = service.master().stats();
        assertThat(s.bytesUsed()).isBetween(0L, s.capacityBytes());
        assertThat(s.objects()).isNotNegative();
        assertThat(s.processing()).isNotNegative();
        for (SegmentInfo seg : service.master().segments())
            assertThat(seg.usedBytes()).isBetween(0L, seg.size());
    }

    private static Message parse(int m, byte[] b) throws InvalidProtocolBufferException {
        return switch (m) {
            case 0 -> PingRequest.parseFrom(b);
            case 1 -> MountRequest.parseFrom(b);
            case 2 -> UnmountRequest.parseFrom(b);
            case 3 -> PutStartRequest.parseFrom(b);
            case 4, 5 -> PutEndRequest.parseFrom(b);
            case 6 -> GetRequest.parseFrom(b);
            case 7 -> KeysRequest.parseFrom(b);
            default -> RemoveRequest.parseFrom(b);
        };
    }

    private static void checkReply(int m, Message request, byte[] reply) {
        try {
            switch (m) {
                case 3 ->
                    assertThat(PutStartReply.parseFrom(reply).getEntriesCount())
                            .isEqualTo(((PutStartRequest) request).getKeysCount());
                case 4, 5 ->
                    assertThat(EndReply.parseFrom(reply).getOkCount())
                            .isEqualTo(((PutEndRequest) request).getKeysCount());
                case 6 ->
                    assertThat(GetReply.parseFrom(reply).getListsCount())
                            .isEqualTo(((GetRequest) request).getKeysCount());
                case 7 ->
                    assertThat(ExistsReply.parseFrom(reply).getExistsCount())
                            .isEqualTo(((KeysRequest) request).getKeysCount());
                default -> {}
            }
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError("the master answered " + METHODS[m] + " with bytes that do not decode", e);
        }
    }

    private static String text(FuzzedDataProvider d) {
        return switch (d.consumeInt(0, 3)) {
            case 0 -> "default";
            case 1 -> "k" + d.consumeInt(0, 9);
            case 2 -> d.consumeAsciiString(d.consumeInt(0, 40));
            default -> d.consumeString(d.consumeInt(0, 600));
        };
    }

    private static List<String> keys(FuzzedDataProvider d) {
        int n = d.consumeInt(0, 8);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(text(d));
        return out;
    }

    private static String segment(FuzzedDataProvider d) {
        return d.consumeBoolean() ? (d.consumeBoolean() ? "seg-a" : "seg-b") : text(d);
    }

    private static Message wellFormed(int m, FuzzedDataProvider d) {
        return switch (m) {
            case 0 ->
                PingRequest.newBuilder()
                        .setClientId(d.consumeBoolean() ? "node-a" : text(d))
                        .build();
            case 1 ->
                MountRequest.newBuilder()
                        .setClientId(d.consumeBoolean() ? "node-c" : text(d))
                        .setSegment(segment(d))
                        .setSize(d.consumeBoolean() ? d.consumeLong(-1, 1L << 22) : d.consumeLong())
                        .setEndpoint(text(d))
                        .build();
            case 2 ->
                UnmountRequest.newBuilder()
                        .setClientId(d.consumeBoolean() ? "node-a" : text(d))
                        .setSegment(segment(d))
                        .build();
            case 3 -> {
                List<String> ks = keys(d);
                PutStartRequest.Builder b =
                        PutStartRequest.newBuilder().setTenant(text(d)).addAllKeys(ks);
                int n = d.consumeBoolean() ? ks.size() : d.consumeInt(0, 8);
                for (int i = 0; i < n; i++)
                    b.addLengths(d.consumeBoolean() ? d.consumeLong(-1, 1L << 21) : d.consumeLong());
                n = d.consumeBoolean() ? ks.size() : d.consumeInt(0, 8);
                for (int i = 0; i < n; i++) b.addCrcs(d.consumeInt());
                if (d.consumeBoolean()) {
                    ReplicateConfigMsg.Builder c = ReplicateConfigMsg.newBuilder()
                            .setReplicaNum(d.consumeInt(-2, 70))
                            .setSoftPin(d.consumeBoolean())
                            .setHardPin(d.consumeBoolean());
                    int p = d.consumeInt(0, 3);
                    for (int i = 0; i < p; i++) c.addPreferredSegments(segment(d));
                    b.setConfig(c);
                }
                yield b.build();
            }
            case 4, 5 -> {
                List<String> ks = keys(d);
                PutEndRequest.Builder b =
                        PutEndRequest.newBuilder().setTenant(text(d)).addAllKeys(ks);
                int n = d.consumeBoolean() ? ks.size() : d.consumeInt(0, 8);
                for (int i = 0; i < n; i++) b.addPutIds(d.consumeLong(-1, 8));
                yield b.build();
            }
            case 6 ->
                GetRequest.newBuilder().setTenant(text(d)).addAllKeys(keys(d)).build();
            case 7 ->
                KeysRequest.newBuilder().setTenant(text(d)).addAllKeys(keys(d)).build();
            default ->
                RemoveRequest.newBuilder().setTenant(text(d)).setKey(text(d)).build();
        };
    }

    /** These tests talk over loopback sockets on purpose; a connection anywhere else is a finding (Jazzer's SSRF detector). */
    private static void allowLoopback() {
        BugDetectors.allowNetworkConnections((host, port) -> host.equals("127.0.0.1") || host.equals("localhost"));
    }
}
