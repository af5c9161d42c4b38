package dev.kvlab.store.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.MountStatus;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.rpc.MasterUnavailableException;
import dev.kvlab.store.internal.server.MasterService;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The channel's asynchronous calls over real gRPC: the blocking calls' answers and failures, completed off the caller's thread. */
class AsyncMasterChannelTest {

    private static MasterService service() {
        return new MasterService(
                new StoreMaster(MasterConfig.defaults(), Clock.systemUTC()), new SimpleMeterRegistry());
    }

    private static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void putStartPutEndAndLookupsAnswerAsTheBlockingCalls() throws Exception {
        try (MasterServer server = MasterServer.start(service(), "127.0.0.1", 0, null);
                GrpcMasterChannel ch = new GrpcMasterChannel("127.0.0.1", server.port(), Duration.ofSeconds(5), null)) {
            assertThat(ch.mount("n1", "seg", 1 << 20, "local://seg")).isEqualTo(MountStatus.MOUNTED);
            Thread caller = Thread.currentThread();
            Thread[] completedOn = new Thread[1];
            List<PutStartResult> started = await(ch.putStartAsync(
                            "t", List.of("a", "b"), new long[] {1000, 2000}, new int[] {7, 8}, ReplicateConfig.DEFAULT)
                    .whenComplete((r, e) -> completedOn[0] = Thread.currentThread()));
            assertThat(completedOn[0])
                    .as("completed by the transport, not by the waiting caller")
                    .isNotSameAs(caller);
            assertThat(started)
                    .extracting(PutStartResult::status)
                    .containsExactly(PutStartResult.Status.STARTED, PutStartResult.Status.STARTED);
            assertThat(started.getFirst().replicas())
                    .singleElement()
                    .satisfies(r -> assertThat(r.endpoint()).isEqualTo("local://seg"));
            long[] ids = {started.get(0).putId(), started.get(1).putId()};

            assertThat(await(ch.getReplicaListsAsync("t", List.of("a")))
                            .getFirst()
                            .status())
                    .as("not visible before PutEnd")
                    .isEqualTo(ReplicaList.Status.IN_PROGRESS);
            assertThat(await(ch.putEndAsync("t", List.of("a", "b"), ids))).containsExactly(EndStatus.OK, EndStatus.OK);
            assertThat(await(ch.putEndAsync("t", List.of("a", "b"), ids)))
                    .containsExactly(EndStatus.NOT_FOUND, EndStatus.NOT_FOUND);

            List<ReplicaList> got = await(ch.getReplicaListsAsync("t", List.of("b", "missing", "a")));
            List<ReplicaList> blocking = ch.getReplicaLists("t", List.of("b", "missing", "a"));
            assertThat(got)
                    .extracting(ReplicaList::status)
                    .containsExactly(ReplicaList.Status.FOUND, ReplicaList.Status.NOT_FOUND, ReplicaList.Status.FOUND);
            assertThat(got)
                    .extracting(ReplicaList::status)
                    .isEqualTo(blocking.stream().map(ReplicaList::status).toList());
            assertThat(got)
                    .extracting(ReplicaList::replicas)
                    .isEqualTo(blocking.stream().map(ReplicaList::replicas).toList());
            assertThat(got.getFirst().length()).isEqualTo(2000);
            assertThat(got.getFirst().crc32c()).isEqualTo(8);
            assertThat(got.getFirst().leaseTtlNanos()).isPositive();
        }
    }

    @Test
    void failuresAreTheBlockingCallsFailures() throws Exception {
        try (MasterServer server = MasterServer.start(service(), "127.0.0.1", 0, "s3cret-token");
                GrpcMasterChannel ch =
                        new GrpcMasterChannel("127.0.0.1", server.port(), Duration.ofSeconds(5), "s3cret-token");
                GrpcMasterChannel wrong =
                        new GrpcMasterChannel("127.0.0.1", server.port(), Duration.ofSeconds(5), "s3cret-tokem")) {
            assertThatThrownBy(() -> await(ch.getReplicaListsAsync("bad/tenant", List.of("k"))))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> await(wrong.putEndAsync("t", List.of("k"), new long[] {1})))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(SecurityException.class);
            server.close();
            assertThatThrownBy(() -> await(ch.getReplicaListsAsync("t", List.of("k"))))
                    .as("master gone")
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(MasterUnavailableException.class);
        }
    }

    @Test
    void anAsyncCallAfterAMasterRestartReconnects() throws Exception {
        MasterServer first = MasterServer.start(service(), "127.0.0.1", 0, null);
        int port = first.port();
        try (GrpcMasterChannel ch = new GrpcMasterChannel("127.0.0.1", port, Duration.ofSeconds(5), null)) {
            assertThat(await(ch.getReplicaListsAsync("t", List.of("k")))
                            .getFirst()
                            .status())
                    .isEqualTo(ReplicaList.Status.NOT_FOUND);
            first.close();
            assertThatThrownBy(() -> await(ch.getReplicaListsAsync("t", List.of("k"))))
                    .cause()
                    .isInstanceOf(MasterUnavailableException.class);
            try (MasterServer second = MasterRestartTest.serve(service(), port)) {
                assertThat(await(ch.getReplicaListsAsync("t", List.of("k")))
                                .getFirst()
                                .status())
                        .as("the channel was in reconnect backoff")
                        .isEqualTo(ReplicaList.Status.NOT_FOUND);
            }
        }
    }
}
