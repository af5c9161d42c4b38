package dev.kvlab.store.internal.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.internal.master.MasterImage;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.testkit.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The oplog carries the whole metadata: a standby that applies a leader's batches holds exactly the leader's objects and
 * segments (leases aside: they are not logged), a snapshot loads into the same view, and a master restored from it
 * holds the same and never places a new block over a known one. Random histories with every kind of change (puts,
 * revokes, late ends, takeovers, removes, evictions, corrupt replicas, unmounts, reclaims).
 */
class OpLogReplicationTest {

    private static final MasterConfig CONFIG = MasterConfig.defaults()
            .withDiscardTimeout(Duration.ofSeconds(2))
            .withReleaseTimeout(Duration.ofSeconds(5))
            .withClientTtl(Duration.ofDays(1));

    private record Logged(List<byte[]> batches, OpLogWriter writer) {}

    private static Logged attach(StoreMaster m, long nextSeq, Map<String, Integer> ordinals) {
        List<byte[]> batches = new ArrayList<>();
        OpLogWriter w = new OpLogWriter(
                (k, b) -> {
                    synchronized (batches) {
                        batches.add(b);
                    }
                    return true;
                },
                HaKeys.of("t"),
                1,
                nextSeq,
                ordinals,
                () -> {});
        m.journal(w);
        return new Logged(batches, w);
    }

    @Test
    void aStandbyApplyingTheLogHoldsWhatTheLeaderHolds() throws Exception {
        for (long seed = 1; seed <= 4; seed++) {
            ManualClock clock = new ManualClock();
            StoreMaster m = new StoreMaster(CONFIG.withSeed(seed), clock);
            Logged log = attach(m, 1, Map.of());
            history(m, clock, seed, 4000);
            assertThat(log.writer().awaitDurable(log.writer().appendedSeq(), 10_000))
                    .isTrue();
            StandbyImage standby = new StandbyImage();
            for (byte[] b : log.batches()) assertThat(standby.applyBatch(b)).isTrue();
            assertThat(standby.applied()).isEqualTo(log.writer().appendedSeq());
            MasterImage leader = m.export(null);
            assertThat(view(standby.image())).as("seed " + seed).isEqualTo(view(leader));
            assertThat(leader.objects())
                    .as("the history leaves objects to compare")
                    .hasSizeGreaterThan(50);
            log.writer().close();
        }
    }

    @Test
    void changesMadeWithinTheLingerShipAsOneBatchNotOneTransactionEach() throws Exception {
        Logged log = attach(new StoreMaster(CONFIG, new ManualClock()), 1, Map.of());
        OpLogWriter w = log.writer();
        for (int i = 1; i <= 4; i++) { // four changes about half a millisecond apart: inside one linger
            w.completed("k" + i, i, i);
            java.util.concurrent.locks.LockSupport.parkNanos(500_000);
        }
        assertThat(w.awaitDurable(4, 10_000)).isTrue();
        // a writer that ships as soon as it wakes sends each of these changes in a transaction of its own; two allows
        // for this thread losing the CPU for a whole linger between two of them
        assertThat(w.batches()).as("etcd transactions for 4 changes").isLessThanOrEqualTo(2);
        StandbyImage standby = new StandbyImage();
        for (byte[] b : log.batches()) assertThat(standby.applyBatch(b)).isTrue();
        assertThat(standby.applied()).isEqualTo(4);
        w.close();
    }

    @Test
    void aSnapshotAndTheLogAfterItGiveTheSameView() throws Exception {
        ManualClock clock = new ManualClock();
        StoreMaster m = new StoreMaster(CONFIG.withSeed(7), clock);
        Logged log = attach(m, 1, Map.of());
        history(m, clock, 7, 2000);
        Map<String, Integer> ords = new HashMap<>();
        long[] cut = new long[1];
        MasterImage atCut = m.export(() -> cut[0] = log.writer().cut(ords));
        byte[] snap = Snapshots.encode(atCut, cut[0], 1, ords);
        history(m, clock, 8, 2000);
        assertThat(log.writer().awaitDurable(log.writer().appendedSeq(), 10_000))
                .isTrue();
        StandbyImage s = new StandbyImage();
        s.loadSnapshot(snap);
        assertThat(view(s.image())).isEqualTo(view(atCut));
        int applied = 0;
        for (byte[] b : log.batches()) {
            OpLog.BatchHeader h = OpLog.readBatchHeader(b);
            if (h.lastSeq() <= cut[0]) continue;
            assertThat(h.firstSeq()).as("no batch straddles the cut").isGreaterThan(cut[0]);
            assertThat(s.applyBatch(b)).isTrue();
            applied++;
        }
        assertThat(applied).isPositive();
        assertThat(view(s.image())).isEqualTo(view(m.export(null)));
        log.writer().close();
    }

    @Test
    void aRestoredMasterHoldsTheViewAndPlacesNewBlocksBesideTheOldOnes() throws Exception {
        ManualClock clock = new ManualClock();
        StoreMaster m = new StoreMaster(CONFIG.withSeed(3), clock);
        Logged log = attach(m, 1, Map.of());
        history(m, clock, 3, 3000);
        assertThat(log.writer().awaitDurable(log.writer().appendedSeq(), 10_000))
                .isTrue();
        StandbyImage s = new StandbyImage();
        for (byte[] b : log.batches()) s.applyBatch(b);
        long floor = m.nowNanos() + 10_000_000_000L;
        StoreMaster r = StoreMaster.restore(CONFIG.withSeed(3), clock, s.image(), 2L << 40, floor);
        assertThat(view(r.export(null))).isEqualTo(view(s.image()));
        assertThat(r.stats().bytesUsed()).isEqualTo(m.stats().bytesUsed() - discardedBytes(m));
        // the old leader's readers may still hold leases: nothing is evicted under them
        for (MasterImage.ObjectRecord o : r.export(null).objects())
            if (o.complete()) assertThat(o.leaseDeadline()).isGreaterThanOrEqualTo(floor);
        Logged next = attach(r, s.applied() + 1, s.ordinals());
        for (int i = 0; i < 300; i++) {
            PutStartResult p = r.putStart("new/" + i, 1 + i * 997 % (1 << 20), i, ReplicateConfig.replicas(2));
            if (p.status() == PutStartResult.Status.STARTED) {
                assertThat(p.putId()).as("a new term's put ids").isGreaterThanOrEqualTo(2L << 40);
                r.putEnd("new/" + i, p.putId());
            }
        }
        assertNoOverlap(r.export(null));
        assertThat(next.writer().awaitDurable(next.writer().appendedSeq(), 10_000))
                .isTrue();
        for (byte[] b : next.batches())
            assertThat(s.applyBatch(b))
                    .as("the new leader's log goes on from the old one's")
                    .isTrue();
        assertThat(view(s.image())).isEqualTo(view(r.export(null)));
        log.writer().close();
        next.writer().close();
    }

    /** Bytes of replicas the master dropped but keeps allocated until their readers' leases end (not in any view). */
    private static long discardedBytes(StoreMaster m) {
        long held = 0;
        for (MasterImage.ObjectRecord o : m.export(null).objects())
            held += o.replicas().size() * ((o.length() + 63) & -64L);
        return m.stats().bytesUsed() - held;
    }

    private static void assertNoOverlap(MasterImage img) {
        Map<String, TreeMap<Long, Long>> bySeg = new HashMap<>();
        for (MasterImage.ObjectRecord o : img.objects())
            for (MasterImage.BlockRef b : o.replicas()) {
                TreeMap<Long, Long> t = bySeg.computeIfAbsent(b.segment(), k -> new TreeMap<>());
                long end = b.offset() + ((o.length() + 63) & -64L);
                var before = t.floorEntry(b.offset());
                var after = t.ceilingEntry(b.offset());
                assertThat(before == null || before.getValue() <= b.offset())
                        .as("block at " + b.offset() + " overlaps the one before")
                        .isTrue();
                assertThat(after == null || after.getKey() >= end)
                        .as("block at " + b.offset() + " overlaps the one after")
                        .isTrue();
                t.put(b.offset(), end);
            }
    }

    /** A view without leases (not logged): segments, and each object's put, state, size, checksum, pins and blocks. */
    private static Set<String> view(MasterImage img) {
        Set<String> out = img.segments().stream().map(s -> "seg " + s).collect(Collectors.toSet());
        for (MasterImage.ObjectRecord o : img.objects())
            out.add(o.key() + " " + o.putId() + " " + o.complete() + " " + o.length() + " " + o.crc32c() + " "
                    + o.softPin() + o.hardPin() + " " + o.startedNanos() + " " + o.replicas());
        return out;
    }

    private static void history(StoreMaster m, ManualClock clock, long seed, int steps) {
        SplittableRandom r = new SplittableRandom(seed);
        List<String> lateKeys = new ArrayList<>();
        List<Long> lateIds = new ArrayList<>();
        int segs = 0;
        for (; segs < 4; segs++)
            m.mountSegment("n" + seed + "-" + segs, "s" + seed + "-" + segs, 48L << 20, "ep" + segs);
        for (int step = 0; step < steps; step++) {
            clock.advance(Duration.ofMillis(r.nextInt(20)));
            String key = "t/k" + r.nextInt(700);
            switch (r.nextInt(12)) {
                case 0, 1, 2, 3 -> {
                    PutStartResult p = m.putStart(
                            key,
                            1 + r.nextInt(1 << 20),
                            r.nextInt(),
                            new ReplicateConfig(1 + r.nextInt(2), r.nextInt(10) == 0, r.nextInt(30) == 0, List.of()));
                    if (p.status() != PutStartResult.Status.STARTED) continue;
                    if (r.nextInt(20) == 0) m.putRevoke(key, p.putId());
                    else if (r.nextInt(8) == 0) {
                        lateKeys.add(key);
                        lateIds.add(p.putId());
                    } else if (r.nextInt(40) != 0) m.putEnd(key, p.putId());
                }
                case 4, 5, 6 -> m.getReplicaList(key);
                case 7 -> {
                    m.remove(key);
                    if (!lateKeys.isEmpty()) {
                        int i = r.nextInt(lateKeys.size());
                        m.putEnd(lateKeys.remove(i), lateIds.remove(i));
                    }
                }
                case 8 -> {
                    ReplicaList l = m.getReplicaList(key);
                    if (l.found() && r.nextInt(4) == 0)
                        m.dropCorruptReplica(
                                key,
                                l.replicas().getFirst().segment(),
                                l.replicas().getFirst().offset());
                }
                case 9 -> m.tick();
                case 10 -> {
                    if (r.nextInt(40) == 0) {
                        m.unmountSegment("s" + seed + "-" + r.nextInt(segs));
                        m.mountSegment("n" + seed + "-" + segs, "s" + seed + "-" + segs, 48L << 20, "ep" + segs);
                        segs++;
                    }
                }
                default -> clock.advance(Duration.ofMillis(r.nextInt(500)));
            }
        }
    }
}
