package dev.kvlab.store.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.GetStatus;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.Replica;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.internal.client.DelayingTransferEngine;
import dev.kvlab.store.internal.client.StoreClient;
import dev.kvlab.store.internal.cluster.EmbeddedCluster;
import dev.kvlab.store.internal.node.StorageNode;
import dev.kvlab.store.testkit.ManualClock;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.TransportConfig;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Faults through the whole client path, with the master under a clock the test moves. */
class EmbeddedClusterTest {

    final ManualClock clock = new ManualClock();
    EmbeddedCluster cluster = EmbeddedCluster.start(
            EmbeddedCluster.Settings.of("local", 2, 16L << 20)
                    .withClock(clock)
                    .withPingInterval(null)
                    .withTickInterval(null),
            null);
    KvBackend client = cluster.client(BackendOptions.defaults().withVerifyContent(true));

    @AfterEach
    void stop() {
        client.close();
        cluster.close();
    }

    MemorySegment value(String key, int len) {
        MemorySegment m = client.allocateBuffer(len);
        KeyedPayload.fill(key, m, 0, len);
        return m;
    }

    ReplicateConfig on(String segment) {
        return new ReplicateConfig(1, false, false, List.of(segment));
    }

    @Test
    void aKilledNodesObjectsBecomeMissesAndSurvivingReplicasStillServe() {
        StorageNode n0 = cluster.nodes().get(0), n1 = cluster.nodes().get(1);
        assertThat(client.put("only0", value("only0", 50_000), on(n0.segmentName())))
                .isEqualTo(PutStatus.OK);
        assertThat(client.put(
                        "both", value("both", 50_000), new ReplicateConfig(2, false, false, List.of(n0.segmentName()))))
                .isEqualTo(PutStatus.OK);
        MemorySegment dst = client.allocateBuffer(50_000);
        assertThat(client.getInto("only0", dst).isHit()).isTrue();

        cluster.killNode(0);
        GetResult dead = client.getInto("only0", dst);
        assertThat(dead.isHit())
                .as("before the master notices, the read fails: %s", dead)
                .isFalse();
        GetResult both = client.getInto("both", dst);
        assertThat(both.status())
                .as("the first replica is dead, the second serves: %s", both.detail())
                .isEqualTo(GetStatus.HIT);
        assertThat(KeyedPayload.matches("both", dst, 0, 50_000)).isTrue();

        clock.advance(Duration.ofSeconds(11));
        n1.pingOnce();
        cluster.master().tick();
        assertThat(cluster.master().segments()).hasSize(1);
        assertThat(client.getInto("only0", dst).status())
                .as("after the liveness TTL: a plain miss")
                .isEqualTo(GetStatus.MISS);
        assertThat(client.getInto("both", dst).status()).isEqualTo(GetStatus.HIT);
        assertThat(client.exists("only0")).isFalse();
        // new puts go to the survivor
        assertThat(client.put("after", value("after", 1000), ReplicateConfig.replicas(2)))
                .isEqualTo(PutStatus.OK);
        assertThat(client.getInto("after", dst).isHit()).isTrue();
    }

    @Test
    void aPutWhoseTransferFailsIsRevokedAndNothingIsVisible() {
        StorageNode n0 = cluster.nodes().get(0);
        cluster.killNode(0); // the master still believes it is mounted
        PutStatus s = client.put("doomed", value("doomed", 10_000), on(n0.segmentName()));
        assertThat(s).isEqualTo(PutStatus.FAILED);
        assertThat(client.exists("doomed")).isFalse();
        assertThat(cluster.master().stats().processing()).isZero();
        assertThat(cluster.master().getReplicaList("default/doomed").found()).isFalse();
    }

    @Test
    void corruptBytesAreCaughtByTheChecksumAndAnotherReplicaServes() {
        StorageNode n0 = cluster.nodes().get(0);
        client.put("one", value("one", 8192), on(n0.segmentName()));
        client.put("two", value("two", 8192), new ReplicateConfig(2, false, false, List.of(n0.segmentName())));
        corrupt(n0, "default/one");
        corrupt(n0, "default/two");
        MemorySegment dst = client.allocateBuffer(8192);
        GetResult r = client.getInto("one", dst);
        assertThat(r.status()).isEqualTo(GetStatus.CHECKSUM_MISMATCH);
        assertThat(client.getInto("two", dst).status()).isEqualTo(GetStatus.HIT);
        assertThat(KeyedPayload.matches("two", dst, 0, 8192)).isTrue();
        // the client reported both bad replicas: "one" (its only replica) is gone, "two" keeps its good one
        List<GetResult> batch = client.batchGetInto(
                List.of("one", "two"), List.of(client.allocateBuffer(8192), client.allocateBuffer(8192)));
        assertThat(batch).extracting(GetResult::status).containsExactly(GetStatus.MISS, GetStatus.HIT);
    }

    /**
     * Issue 14: checksum failures used to persist after the keys were put again (the put saw the object as present).
     * Now the client reports a replica failing verification, the master drops it, the next put repopulates the key,
     * and the store counts it.
     */
    @Test
    void aReplicaFailingVerificationIsDroppedAndTheNextPutRepopulatesIt() {
        StorageNode n0 = cluster.nodes().get(0);
        MemorySegment dst = client.allocateBuffer(8192);
        assertThat(client.put("k", value("k", 8192), on(n0.segmentName()))).isEqualTo(PutStatus.OK);
        corrupt(n0, "default/k");
        assertThat(client.getInto("k", dst).status()).isEqualTo(GetStatus.CHECKSUM_MISMATCH);
        assertThat(cluster.master().corruptReplicasDropped()).isEqualTo(1);
        assertThat(client.exists("k")).as("its only replica was dropped").isFalse();
        assertThat(client.put("k", value("k", 8192), on(n0.segmentName())))
                .as("repopulated, not EXISTS")
                .isEqualTo(PutStatus.OK);
        assertThat(client.getInto("k", dst).status()).isEqualTo(GetStatus.HIT);
        assertThat(KeyedPayload.matches("k", dst, 0, 8192)).isTrue();
        // a report of a replica that is not there (already dropped, or replaced) changes nothing
        assertThat(cluster.master().dropCorruptReplica("default/k", "no-such-segment", 0))
                .isFalse();
        assertThat(cluster.master().corruptReplicasDropped()).isEqualTo(1);
        assertThat(client.getInto("k", dst).isHit()).isTrue();
    }

    private void corrupt(StorageNode node, String qualifiedKey) {
        ReplicaList l = cluster.master().getReplicaList(qualifiedKey);
        for (Replica r : l.replicas()) {
            if (!r.segment().equals(node.segmentName())) continue;
            MemorySegment mem = node.segment().memory();
            long at = r.offset() + 100;
            mem.set(ValueLayout.JAVA_BYTE, at, (byte) ~mem.get(ValueLayout.JAVA_BYTE, at));
        }
        clock.advance(Duration.ofSeconds(11)); // let the lookup's lease lapse
        for (StorageNode n : cluster.nodes()) n.pingOnce();
    }

    @Test
    void aReadSlowerThanTheLeaseIsLeaseExpiredNeverData() {
        client.close();
        cluster.close();
        cluster = EmbeddedCluster.start(
                EmbeddedCluster.Settings.of("local", 1, 16L << 20)
                        .withMaster(MasterConfig.defaults().withLeaseTtl(Duration.ofMillis(60)))
                        .withPingInterval(null)
                        .withTickInterval(null),
                null);
        DelayingTransferEngine slow = new DelayingTransferEngine(
                Transports.discover().create("local", TransportConfig.defaults()), Duration.ZERO);
        client = new StoreClient("slow", cluster.service(), slow, BackendOptions.defaults(), slow::close);
        client.put("k", value("k", 4096), ReplicateConfig.DEFAULT);
        MemorySegment dst = client.allocateBuffer(4096);
        assertThat(client.getInto("k", dst).isHit()).isTrue();
        slow.delay(Duration.ofMillis(150));
        GetResult r = client.getInto("k", dst);
        assertThat(r.status()).isEqualTo(GetStatus.LEASE_EXPIRED);
        assertThat(r.isHit()).isFalse();
        assertThat(client.batchGetInto(List.of("k"), List.of(dst)).getFirst().status())
                .isEqualTo(GetStatus.LEASE_EXPIRED);
    }

    @Test
    void aReadersLeaseBlocksRemove() {
        client.put("leased", value("leased", 1000), ReplicateConfig.DEFAULT);
        assertThat(client.getInto("leased", client.allocateBuffer(1000)).isHit())
                .isTrue();
        assertThat(client.remove("leased")).isEqualTo(RemoveStatus.LEASED);
        clock.advance(Duration.ofSeconds(10));
        assertThat(client.remove("leased")).isEqualTo(RemoveStatus.REMOVED);
    }

    @Test
    void aReturningNodeRemountsAndServesNewPuts() {
        StorageNode n0 = cluster.nodes().get(0), n1 = cluster.nodes().get(1);
        clock.advance(Duration.ofSeconds(11));
        n1.pingOnce();
        cluster.master().tick();
        assertThat(cluster.master().segments()).hasSize(1);
        n0.pingOnce(); // unknown to the master now: remounts
        assertThat(cluster.master().segments()).hasSize(2);
        assertThat(client.put("back", value("back", 1000), on(n0.segmentName())))
                .isEqualTo(PutStatus.OK);
        assertThat(client.getInto("back", client.allocateBuffer(1000)).isHit()).isTrue();
    }

    @Test
    void theFaultHooksWorkThroughTheBundledSpec() {
        BackendOptions o = BackendOptions.defaults()
                .withTransport("local")
                .withSegmentBytes(8L << 20)
                .withExtra(java.util.Map.of("lease-ttl", "50ms", "read-delay", "120ms"));
        try (KvBackend b = KvBackends.discover().open("bundled", o)) {
            MemorySegment v = b.allocateBuffer(1000);
            KeyedPayload.fill("x", v);
            assertThat(b.put("x", v, ReplicateConfig.DEFAULT)).isEqualTo(PutStatus.OK);
            assertThat(b.getInto("x", b.allocateBuffer(1000)).status()).isEqualTo(GetStatus.LEASE_EXPIRED);
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> KvBackends.discover()
                        .open(
                                "bundled",
                                BackendOptions.defaults()
                                        .withTransport("local")
                                        .withExtra(java.util.Map.of("leese-ttl", "1s"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leese-ttl");
        client.put("c", value("c", 4096), ReplicateConfig.replicas(2));
        assertThat(cluster.corrupt("default", "c")).isEqualTo(2);
        clock.advance(Duration.ofSeconds(11));
        assertThat(client.getInto("c", client.allocateBuffer(4096)).status()).isEqualTo(GetStatus.CHECKSUM_MISMATCH);
    }

    @Test
    void theBundledSpecOpensAWorkingStore() {
        try (KvBackend b = KvBackends.discover()
                .open(
                        "bundled",
                        BackendOptions.defaults().withTransport("local").withSegmentBytes(8L << 20))) {
            MemorySegment v = b.allocateBuffer(1000);
            KeyedPayload.fill("x", v);
            assertThat(b.put("x", v, ReplicateConfig.DEFAULT)).isEqualTo(PutStatus.OK);
            MemorySegment dst = b.allocateBuffer(1000);
            assertThat(b.getInto("x", dst).isHit()).isTrue();
            assertThat(b.name()).isEqualTo("bundled/local");
        }
    }
}
