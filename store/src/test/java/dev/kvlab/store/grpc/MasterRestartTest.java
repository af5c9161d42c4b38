package dev.kvlab.store.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.GetStatus;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.node.StorageNode;
import dev.kvlab.store.internal.server.MasterService;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The master process restarts: nodes remount by themselves, clients reconnect, an in-flight put never becomes visible. */
class MasterRestartTest {

    static MasterServer serve(MasterService s, int port) throws Exception {
        for (int i = 0; ; i++) {
            try {
                return MasterServer.start(s, "127.0.0.1", port, null);
            } catch (IOException e) {
                if (i == 50) throw e;
                Thread.sleep(100); // the old socket is still closing
            }
        }
    }

    @Test
    void nodesRemountClientsReconnectAndInFlightPutsAreNeverHalfVisible() throws Exception {
        MasterService s1 = new MasterService(
                new StoreMaster(MasterConfig.defaults(), Clock.systemUTC()), new SimpleMeterRegistry());
        MasterServer m1 = MasterServer.start(s1, "127.0.0.1", 0, null);
        int port = m1.port();
        try (TransferEngine e1 = Transports.discover().create("local", TransportConfig.defaults());
                TransferEngine e2 = Transports.discover().create("local", TransportConfig.defaults());
                GrpcMasterChannel c1 = new GrpcMasterChannel("127.0.0.1", port, Duration.ofSeconds(2), null);
                GrpcMasterChannel c2 = new GrpcMasterChannel("127.0.0.1", port, Duration.ofSeconds(2), null);
                StorageNode n1 = new StorageNode(c1, e1, "rn1", 8L << 20, Duration.ofMillis(100)).start();
                StorageNode n2 = new StorageNode(c2, e2, "rn2", 8L << 20, Duration.ofMillis(100)).start();
                GrpcMasterChannel writer = new GrpcMasterChannel("127.0.0.1", port, Duration.ofSeconds(2), null);
                KvBackend client = KvBackends.discover()
                        .open(
                                "kvlab://127.0.0.1:" + port,
                                BackendOptions.defaults()
                                        .withTransport("local")
                                        .withVerifyContent(true)
                                        .withTimeout(Duration.ofSeconds(2)))) {
            MemorySegment v = client.allocateBuffer(4096);
            KeyedPayload.fill("before", v);
            assertThat(client.put("before", v, ReplicateConfig.DEFAULT)).isEqualTo(PutStatus.OK);
            PutStartResult inflight = writer.putStart(
                            "default", List.of("inflight"), new long[] {4096}, new int[] {0}, ReplicateConfig.DEFAULT)
                    .getFirst();
            assertThat(inflight.status()).isEqualTo(PutStartResult.Status.STARTED);

            m1.close();
            s1.close();
            assertThat(client.getInto("before", v).status())
                    .as("master down: a miss, not a crash")
                    .isIn(GetStatus.TIMEOUT, GetStatus.ERROR);
            MasterService s2 = new MasterService(
                    new StoreMaster(MasterConfig.defaults(), Clock.systemUTC()), new SimpleMeterRegistry());
            try (MasterServer m2 = serve(s2, port)) {
                long until = System.nanoTime() + 10_000_000_000L;
                while (s2.master().segments().size() < 2 && System.nanoTime() < until) Thread.sleep(50);
                assertThat(s2.master().segments()).as("both nodes remounted").hasSize(2);
                assertThat(writer.putEnd("default", List.of("inflight"), new long[] {inflight.putId()})
                                .getFirst())
                        .as("the restarted master knows no such put")
                        .isEqualTo(EndStatus.NOT_FOUND);
                assertThat(client.exists("inflight")).isFalse();
                assertThat(client.getInto("before", v).status())
                        .as("metadata did not survive the restart")
                        .isEqualTo(GetStatus.MISS);
                KeyedPayload.fill("after", v);
                assertThat(client.put("after", v, ReplicateConfig.replicas(2))).isEqualTo(PutStatus.OK);
                assertThat(client.getInto("after", v).status()).isEqualTo(GetStatus.HIT);
                assertThat(KeyedPayload.matches("after", v)).isTrue();
            } finally {
                s2.close();
            }
        }
    }
}
