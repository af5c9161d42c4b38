package dev.kvlab.store.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.store.EtcdServer;
import dev.kvlab.store.HaCluster;
import dev.kvlab.store.KvBackends;
import dev.kvlab.store.NodeLauncher;
import dev.kvlab.store.StoreChildProcess;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.GetStatus;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.server.ClusterStatus;
import dev.kvlab.store.api.server.NodeLaunch;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.rpc.MasterUnavailableException;
import dev.kvlab.store.testkit.EtcdProcess;
import dev.kvlab.transport.Transports;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Three master processes on a real etcd, two nodes and a client that find the leader through etcd. The leader is
 * SIGKILLed: a standby leads within 10 s with a higher epoch, every object put before is still there (the oplog) and
 * verified, an in-flight put either completes on the new leader or fails cleanly. The new leader is frozen (SIGSTOP)
 * past its lease and thawed: it refuses every write (fenced), another leads.
 */
class MasterFailoverTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    @Test
    void aStandbyTakesOverWithTheObjectsAndAFrozenOldLeaderIsFenced() throws Exception {
        Map<String, StoreChildProcess> masters = new LinkedHashMap<>();
        Map<String, Integer> ports = new LinkedHashMap<>();
        List<AutoCloseable> closing = new ArrayList<>();
        try (EtcdServer etcd = EtcdProcess.start()) {
            for (String name : List.of("m1", "m2", "m3")) {
                int port = freePort();
                StoreChildProcess m = StoreChildProcess.haMaster(
                        port, 1, Duration.ofSeconds(10), Duration.ofSeconds(10), etcd.spec(), name, LEASE);
                masters.put(name, m);
                ports.put(name, port);
            }
            for (StoreChildProcess m : masters.values())
                assertThat(m.ready().await(60, TimeUnit.SECONDS))
                        .as("master up: " + m.log())
                        .isTrue();
            for (int i = 0; i < 2; i++) {
                NodeLauncher.Running n = NodeLauncher.create(
                        new NodeLaunch(
                                "127.0.0.1",
                                1,
                                32L << 20,
                                "tcp",
                                "127.0.0.1",
                                "fo-n" + i,
                                null,
                                Duration.ofMillis(200),
                                "127.0.0.1",
                                0,
                                false,
                                null,
                                etcd.spec()),
                        Transports.discover());
                closing.add(n);
                n.mount(e -> {});
            }
            ClusterStatus s0 = awaitLeader(etcd, null, 0);
            KvBackend client = KvBackends.discover()
                    .open(
                            "kvlab+" + etcd.spec(),
                            BackendOptions.defaults()
                                    .withTransport("tcp")
                                    .withVerifyContent(true)
                                    .withTimeout(Duration.ofSeconds(2)));
            closing.add(client);
            MemorySegment v = client.allocateBuffer(8192);
            for (int i = 0; i < 200; i++) {
                KeyedPayload.fill("k" + i, v);
                assertThat(client.put("k" + i, v, ReplicateConfig.DEFAULT)).isEqualTo(PutStatus.OK);
            }
            GrpcMasterChannel writer =
                    new GrpcMasterChannel("127.0.0.1", ports.get(s0.leader()), Duration.ofSeconds(2), null);
            closing.add(writer);
            PutStartResult inflight = writer.putStart(
                            "default", List.of("inflight"), new long[] {8192}, new int[] {0}, ReplicateConfig.DEFAULT)
                    .getFirst();
            Thread.sleep(300); // the oplog trails the leader by an etcd round trip

            masters.get(s0.leader()).process().destroyForcibly(); // SIGKILL
            long t0 = System.nanoTime();
            ClusterStatus s1 = awaitLeader(etcd, s0.leader(), 10);
            assertThat((System.nanoTime() - t0) / 1e9).as("failover seconds").isLessThan(10);
            assertThat(s1.epoch()).isGreaterThan(s0.epoch());
            int hits = 0;
            for (int i = 0; i < 200; i++) {
                var g = client.getInto("k" + i, v);
                assertThat(g.status()).as("k" + i).isIn(GetStatus.HIT, GetStatus.MISS);
                if (g.isHit()) {
                    hits++;
                    assertThat(KeyedPayload.matches("k" + i, v, 0, 8192)).isTrue();
                }
            }
            assertThat(hits).as("objects kept through the failover").isEqualTo(200);
            assertThat(client.exists("inflight"))
                    .as("an uncommitted put is never visible")
                    .isFalse();

            String frozen = s1.leader();
            Process p = masters.get(frozen).process();
            signal("STOP", p.pid());
            ClusterStatus s2;
            try {
                s2 = awaitLeader(etcd, frozen, 15);
            } finally {
                signal("CONT", p.pid());
            }
            Thread.sleep(300);
            try (GrpcMasterChannel stale =
                    new GrpcMasterChannel("127.0.0.1", ports.get(frozen), Duration.ofSeconds(2), null)) {
                assertThatThrownBy(() -> stale.putStart(
                                "default", List.of("late"), new long[] {100}, new int[] {0}, ReplicateConfig.DEFAULT))
                        .as("the thawed old leader accepts no write")
                        .isInstanceOf(MasterUnavailableException.class)
                        .hasMessageContaining("not the leader");
                assertThat(stale.status().role()).isNotEqualTo("leader");
            }
            assertThat(s2.epoch()).isGreaterThan(s1.epoch());
            KeyedPayload.fill("after", v);
            assertThat(client.put("after", v, ReplicateConfig.DEFAULT))
                    .as("the client follows the third leader")
                    .isEqualTo(PutStatus.OK);
            assertThat(client.getInto("k7", v).isHit()).isTrue();
        } finally {
            for (AutoCloseable c : closing.reversed()) c.close();
            for (StoreChildProcess m : masters.values()) m.process().destroyForcibly();
        }
    }

    private static ClusterStatus awaitLeader(EtcdServer etcd, String notThis, int seconds) throws InterruptedException {
        long until = System.nanoTime() + Math.max(30, seconds) * 1_000_000_000L;
        ClusterStatus s = null;
        while (System.nanoTime() < until) {
            s = HaCluster.status(etcd.spec(), Duration.ofSeconds(2));
            if (s.leader() != null && !s.leader().equals(notThis)) return s;
            Thread.sleep(50);
        }
        throw new AssertionError("no new leader: " + s);
    }

    private static void signal(String sig, long pid) throws Exception {
        new ProcessBuilder("kill", "-" + sig, Long.toString(pid))
                .inheritIO()
                .start()
                .waitFor();
    }

    private static int freePort() throws Exception {
        return dev.kvlab.store.LoopbackPorts.free(); // below the ephemeral range: no outgoing connection takes it first
    }
}
