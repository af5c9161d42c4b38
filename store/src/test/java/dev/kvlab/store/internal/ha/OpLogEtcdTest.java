package dev.kvlab.store.internal.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.store.EtcdServer;
import dev.kvlab.store.internal.master.MasterImage;
import dev.kvlab.store.testkit.EtcdProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The oplog on a real etcd: a leader's batches land while its election key exists and a standby reading the log sees
 * them in order; once the key is gone (its lease expired, another master leads) the next batch is refused by etcd,
 * nothing more lands, and the writer says it was fenced. A snapshot truncates the log, and a standby that starts
 * afterwards boots from it and the log after it. Addresses are parsed with their cluster name.
 */
class OpLogEtcdTest {

    @Test
    void batchesLandWhileTheElectionKeyLivesAndNotAfter() throws Exception {
        try (EtcdServer server = EtcdProcess.start();
                EtcdClient etcd = new EtcdClient(EtcdSpec.parse(server.spec()), Duration.ofSeconds(5))) {
            HaKeys keys = HaKeys.of("fence");
            long lease = etcd.grant(5);
            EtcdClient.TxnResult won = etcd.txn(
                    List.of(EtcdClient.Compare.createRevision(keys.leader(), 0)),
                    List.of(new EtcdClient.Put(keys.leader(), "{}".getBytes(StandardCharsets.UTF_8), lease)),
                    List.of());
            assertThat(won.succeeded()).isTrue();
            CountDownLatch fenced = new CountDownLatch(1);
            OpLogWriter w = new OpLogWriter(etcd, keys, 1, won.revision(), 1, Map.of(), fenced::countDown);
            w.mounted("n1", "s1", 1 << 20, "ep");
            w.started(new MasterImage.ObjectRecord(
                    "t/a", 5, 100, 7, false, false, 1, false, 0, List.of(new MasterImage.BlockRef("s1", 0))));
            w.completed("t/a", 5, 2);
            assertThat(w.awaitDurable(3, 10_000)).isTrue();
            StandbyImage standby = new StandbyImage();
            OpLogReader reader = new OpLogReader(etcd, keys, standby, x -> {});
            reader.catchUp();
            assertThat(standby.applied()).isEqualTo(3);
            assertThat(standby.objects()).isEqualTo(1);

            etcd.revoke(lease); // the election key goes with the lease: another master may lead now
            w.removed("t/a", 5);
            assertThat(fenced.await(10, TimeUnit.SECONDS))
                    .as("the writer hears it was fenced")
                    .isTrue();
            assertThat(w.fenced()).isTrue();
            assertThat(w.durableSeq()).as("nothing after the fence is in etcd").isEqualTo(3);
            reader.catchUp();
            assertThat(standby.applied()).isEqualTo(3);
            assertThat(standby.objects()).isEqualTo(1);
            w.close();
        }
    }

    @Test
    void aStandbyStartingAfterASnapshotBootsFromItAndTheLogAfterIt() throws Exception {
        try (EtcdServer server = EtcdProcess.start();
                EtcdClient etcd = new EtcdClient(EtcdSpec.parse(server.spec()), Duration.ofSeconds(5))) {
            HaKeys keys = HaKeys.of("snap");
            long lease = etcd.grant(10);
            EtcdClient.TxnResult won = etcd.txn(
                    List.of(EtcdClient.Compare.createRevision(keys.leader(), 0)),
                    List.of(new EtcdClient.Put(keys.leader(), "{}".getBytes(StandardCharsets.UTF_8), lease)),
                    List.of());
            dev.kvlab.store.testkit.ManualClock clock = new dev.kvlab.store.testkit.ManualClock();
            dev.kvlab.store.internal.master.StoreMaster m =
                    new dev.kvlab.store.internal.master.StoreMaster(dev.kvlab.store.api.MasterConfig.defaults(), clock);
            OpLogWriter w = new OpLogWriter(etcd, keys, 1, won.revision(), 1, Map.of(), () -> {});
            m.journal(w);
            m.mountSegment("n1", "s1", 64L << 20, "ep1");
            for (int i = 0; i < 300; i++) put(m, "t/a" + i);
            java.util.Map<String, Integer> ords = new java.util.HashMap<>();
            long[] cut = new long[1];
            MasterImage img = m.export(() -> cut[0] = w.cut(ords));
            assertThat(w.awaitDurable(cut[0], 10_000)).isTrue();
            assertThat(Snapshots.write(etcd, keys, won.revision(), cut[0], 1, Snapshots.encode(img, cut[0], 1, ords)))
                    .isTrue();
            assertThat(etcd.range(keys.log(0), keys.log(cut[0] + 1), 0).kvs())
                    .as("the log up to the snapshot is gone")
                    .isEmpty();
            for (int i = 0; i < 100; i++) put(m, "t/b" + i);
            m.remove("t/a7");
            assertThat(w.awaitDurable(w.appendedSeq(), 10_000)).isTrue();
            StandbyImage late = new StandbyImage();
            new OpLogReader(etcd, keys, late, x -> {}).bootstrap();
            assertThat(late.applied()).isEqualTo(w.appendedSeq());
            assertThat(late.objects()).isEqualTo(399);
            assertThat(late.image().objects()).hasSize(m.export(null).objects().size());
            w.close();
        }
    }

    private static void put(dev.kvlab.store.internal.master.StoreMaster m, String key) {
        var p = m.putStart(key, 4096, 1, dev.kvlab.store.api.ReplicateConfig.DEFAULT);
        m.putEnd(key, p.putId());
    }

    @Test
    void addressesNameTheirEndpointsAndCluster() {
        EtcdSpec s = EtcdSpec.parse("kvlab+etcd://10.0.0.1:2379,10.0.0.2:2380/prod-a");
        assertThat(s.endpoints()).hasSize(2);
        assertThat(s.cluster()).isEqualTo("prod-a");
        assertThat(EtcdSpec.parse("etcd://127.0.0.1:2379").toString()).isEqualTo("etcd://127.0.0.1:2379/kvlab");
        for (String bad : List.of("etcd://host", "etcd://host:0", "http://h:1", "etcd://h:1/bad name", "etcd://h:x"))
            assertThatThrownBy(() -> EtcdSpec.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
}
