package dev.kvlab.store.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.store.api.AllocationStrategy;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.MasterStats;
import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.MountStatus;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.Replica;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.testkit.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The master's rules, each under a clock that only the test moves. */
class StoreMasterTest {

    static final long KIB = 1024, MIB = 1024 * KIB;

    final ManualClock clock = new ManualClock();
    StoreMaster master = new StoreMaster(MasterConfig.defaults(), clock);

    PutStartResult start(String key, long len) {
        return master.putStart(key, len, 42, ReplicateConfig.DEFAULT);
    }

    void put(String key, long len, ReplicateConfig rc) {
        PutStartResult r = master.putStart(key, len, 42, rc);
        assertThat(r.status()).as("putStart %s", key).isEqualTo(PutStartResult.Status.STARTED);
        assertThat(master.putEnd(key, r.putId())).isEqualTo(EndStatus.OK);
    }

    void put(String key, long len) {
        put(key, len, ReplicateConfig.DEFAULT);
    }

    @Test
    void aPutIsInvisibleUntilPutEnd() {
        master.mountSegment("n1", "s1", 16 * MIB);
        PutStartResult r = start("k", 100 * KIB);
        assertThat(r.status()).isEqualTo(PutStartResult.Status.STARTED);
        assertThat(r.replicas()).hasSize(1);
        assertThat(master.exists("k")).isFalse();
        assertThat(master.getReplicaList("k").status()).isEqualTo(ReplicaList.Status.IN_PROGRESS);
        assertThat(master.putEnd("k", r.putId())).isEqualTo(EndStatus.OK);
        assertThat(master.exists("k")).isTrue();
        ReplicaList l = master.getReplicaList("k");
        assertThat(l.found()).isTrue();
        assertThat(l.length()).isEqualTo(100 * KIB);
        assertThat(l.crc32c()).isEqualTo(42);
        assertThat(l.replicas()).containsExactlyElementsOf(r.replicas());
    }

    @Test
    void revokeLeavesNothingVisibleAndFreesTheSpace() {
        master.mountSegment("n1", "s1", 16 * MIB);
        PutStartResult r = start("k", MIB);
        assertThat(master.stats().bytesUsed()).isEqualTo(MIB);
        assertThat(master.putRevoke("k", r.putId())).isEqualTo(EndStatus.OK);
        assertThat(master.exists("k")).isFalse();
        assertThat(master.getReplicaList("k").status()).isEqualTo(ReplicaList.Status.NOT_FOUND);
        assertThat(master.putEnd("k", r.putId()))
                .as("a revoked put cannot complete")
                .isEqualTo(EndStatus.NOT_FOUND);
        assertThat(master.exists("k")).isFalse();
        MasterStats s = master.stats();
        assertThat(s.bytesUsed()).isZero();
        assertThat(s.objects()).isZero();
        assertThat(s.processing()).isZero();
    }

    @Test
    void aPutOfACompleteKeyIsANoOpSuccess() {
        master.mountSegment("n1", "s1", 16 * MIB);
        put("k", MIB);
        assertThat(start("k", MIB).status()).isEqualTo(PutStartResult.Status.EXISTS);
        assertThat(master.stats().bytesUsed()).isEqualTo(MIB);
        assertThat(master.stats().objects()).isEqualTo(1);
    }

    @Test
    void aSecondWriterOfAKeyWaitsThenTakesAnAbandonedPutOverAndTheOldSpaceIsReleasedLater() {
        master.mountSegment("n1", "s1", 16 * MIB);
        PutStartResult a = start("k", MIB);
        assertThat(start("k", MIB).status()).isEqualTo(PutStartResult.Status.IN_PROGRESS);
        clock.advance(Duration.ofSeconds(29));
        assertThat(start("k", MIB).status()).isEqualTo(PutStartResult.Status.IN_PROGRESS);
        clock.advance(Duration.ofSeconds(1));
        PutStartResult b = start("k", MIB);
        assertThat(b.status())
                .as("after the discard timeout the put is taken over")
                .isEqualTo(PutStartResult.Status.STARTED);
        assertThat(b.replicas().getFirst().offset())
                .as("the old writer may still write: fresh space")
                .isNotEqualTo(a.replicas().getFirst().offset());
        assertThat(master.putEnd("k", a.putId()))
                .as("the abandoned writer cannot complete")
                .isEqualTo(EndStatus.NOT_FOUND);
        assertThat(master.putRevoke("k", a.putId()))
                .as("nor revoke its successor")
                .isEqualTo(EndStatus.NOT_FOUND);
        assertThat(master.exists("k")).isFalse();
        assertThat(master.putEnd("k", b.putId())).isEqualTo(EndStatus.OK);
        assertThat(master.exists("k")).isTrue();
        assertThat(master.stats().takenOverPuts()).isEqualTo(1);
        assertThat(master.stats().bytesUsed())
                .as("abandoned space still reserved")
                .isEqualTo(2 * MIB);
        clock.advance(Duration.ofSeconds(600 - 30 - 1));
        master.ping("n1");
        master.tick();
        assertThat(master.stats().bytesUsed()).isEqualTo(2 * MIB);
        clock.advance(Duration.ofSeconds(1));
        master.ping("n1");
        master.tick();
        assertThat(master.stats().bytesUsed())
                .as("released 600 s after the abandoned put started")
                .isEqualTo(MIB);
    }

    @Test
    void anAbandonedPutNobodyTakesOverIsReclaimedAfterTheReleaseTimeout() {
        master.mountSegment("n1", "s1", 16 * MIB);
        PutStartResult a = start("k", MIB);
        clock.advance(Duration.ofSeconds(599));
        master.ping("n1");
        master.tick();
        assertThat(master.stats().processing()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(1));
        master.ping("n1");
        master.tick();
        MasterStats s = master.stats();
        assertThat(s.processing()).isZero();
        assertThat(s.bytesUsed()).isZero();
        assertThat(s.reclaimedPuts()).isEqualTo(1);
        assertThat(master.putEnd("k", a.putId())).isEqualTo(EndStatus.NOT_FOUND);
    }

    @Test
    void concurrentPutsOfOneKeyStartExactlyOnce() throws Exception {
        master.mountSegment("n1", "s1", 64 * MIB);
        int n = 8;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            for (int round = 0; round < 50; round++) {
                String key = "k" + round;
                CountDownLatch go = new CountDownLatch(1);
                List<Future<PutStartResult>> fs = new ArrayList<>();
                for (int i = 0; i < n; i++)
                    fs.add(pool.submit(() -> {
                        go.await();
                        return master.putStart(key, 64 * KIB, 1, ReplicateConfig.DEFAULT);
                    }));
                go.countDown();
                List<PutStartResult> rs = new ArrayList<>();
                for (Future<PutStartResult> f : fs) rs.add(f.get());
                List<PutStartResult> started = rs.stream()
                        .filter(r -> r.status() == PutStartResult.Status.STARTED)
                        .toList();
                assertThat(started).hasSize(1);
                assertThat(rs)
                        .filteredOn(r -> r.status() != PutStartResult.Status.STARTED)
                        .allMatch(r -> r.status() == PutStartResult.Status.IN_PROGRESS);
                assertThat(master.putEnd(key, started.getFirst().putId())).isEqualTo(EndStatus.OK);
                assertThat(master.putStart(key, 64 * KIB, 1, ReplicateConfig.DEFAULT)
                                .status())
                        .isEqualTo(PutStartResult.Status.EXISTS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(master.stats().bytesUsed()).isEqualTo(50 * 64 * KIB);
    }

    @Test
    void aLeaseBlocksRemoveUntilItExpires() {
        master.mountSegment("n1", "s1", 16 * MIB);
        put("k", MIB);
        assertThat(master.getReplicaList("k").leaseDeadlineNanos())
                .isEqualTo(master.nowNanos() + Duration.ofSeconds(10).toNanos());
        assertThat(master.stats().activeLeases()).isEqualTo(1);
        assertThat(master.remove("k")).isEqualTo(RemoveStatus.LEASED);
        clock.advance(Duration.ofMillis(9_999));
        assertThat(master.remove("k")).isEqualTo(RemoveStatus.LEASED);
        clock.advance(Duration.ofMillis(1));
        assertThat(master.stats().activeLeases()).isZero();
        assertThat(master.remove("k")).isEqualTo(RemoveStatus.REMOVED);
        assertThat(master.exists("k")).isFalse();
        assertThat(master.remove("k")).isEqualTo(RemoveStatus.NOT_FOUND);
        assertThat(master.stats().bytesUsed()).isZero();
    }

    @Test
    void removeOfAProcessingPutIsRefused() {
        master.mountSegment("n1", "s1", 16 * MIB);
        start("k", MIB);
        assertThat(master.remove("k")).isEqualTo(RemoveStatus.IN_PROGRESS);
    }

    @Test
    void watermarkEvictionFreesAtLeastTheRatioOldestLeaseFirst() {
        master.mountSegment("n1", "s1", 100 * MIB);
        for (int i = 0; i < 90; i++) {
            put("k" + i, MIB);
            clock.advance(Duration.ofMillis(10));
        }
        assertThat(master.stats().evictionRuns()).isZero();
        // reading k0..k4 makes them the most recently leased; let the leases lapse so they are evictable again
        for (int i = 0; i < 5; i++) master.getReplicaList("k" + i);
        clock.advance(Duration.ofSeconds(11));
        put("k90", MIB); // 91 % > 90 %
        MasterStats s = master.stats();
        assertThat(s.evictionRuns()).isEqualTo(1);
        assertThat(s.evictedBytes()).isGreaterThanOrEqualTo(5 * MIB);
        assertThat(s.bytesUsed()).isLessThanOrEqualTo(86 * MIB);
        // the oldest by lease are k5, k6, ...; the re-read k0..k4 survive
        for (int i = 0; i < 5; i++)
            assertThat(master.exists("k" + i)).as("k%d was read recently", i).isTrue();
        for (int i = 5; i < 10; i++)
            assertThat(master.exists("k" + i)).as("k%d is among the oldest", i).isFalse();
        assertThat(master.exists("k90")).isTrue();
    }

    @Test
    void anActiveLeaseProtectsFromEviction() {
        master.mountSegment("n1", "s1", 20 * MIB);
        for (int i = 0; i < 18; i++) {
            put("k" + i, MIB);
            clock.advance(Duration.ofMillis(1));
        }
        master.getReplicaList("k0"); // oldest, but leased now
        master.getReplicaList("k1");
        put("k18", MIB); // 19/20 = 95 % > 90 %: evict >= 1 MiB (5 %) and down to the watermark
        assertThat(master.exists("k0")).isTrue();
        assertThat(master.exists("k1")).isTrue();
        assertThat(master.exists("k2")).as("oldest unleased").isFalse();
        assertThat(master.stats().evictedObjects()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void aWatermarkRunThatFallsShortIsNotRepeatedAtOnce() {
        master.mountSegment("n1", "s1", 100 * MIB);
        for (int i = 0; i < 92; i++) {
            put("k" + i, MIB);
            master.getReplicaList("k" + i); // everything is being read
        }
        long runs = master.stats().evictionRuns();
        assertThat(runs).isGreaterThanOrEqualTo(1);
        put("k92", MIB);
        master.getReplicaList("k92");
        put("k93", MIB);
        master.getReplicaList("k93");
        assertThat(master.stats().evictionRuns())
                .as("no rescan on every put while nothing is evictable")
                .isEqualTo(runs);
        clock.advance(Duration.ofMillis(100));
        put("k94", MIB);
        assertThat(master.stats().evictionRuns()).isEqualTo(runs + 1);
        assertThat(master.stats().evictedObjects()).isZero();
        clock.advance(Duration.ofSeconds(10)); // the leases lapse
        master.ping("n1");
        master.tick();
        assertThat(master.stats().evictedObjects()).isPositive();
        assertThat(master.stats().usage()).isLessThanOrEqualTo(0.90);
    }

    @Test
    void softPinnedObjectsGoLastAndHardPinnedNever() {
        master.mountSegment("n1", "s1", 10 * MIB);
        ReplicateConfig soft = new ReplicateConfig(1, true, false, List.of());
        ReplicateConfig hard = new ReplicateConfig(1, false, true, List.of());
        put("hard", MIB, hard);
        put("soft0", MIB, soft);
        put("soft1", MIB, soft);
        clock.advance(Duration.ofSeconds(1));
        for (int i = 0; i < 6; i++) put("plain" + i, MIB);
        // 9/10 used: this allocation of 2 MiB fails, eviction must free 2 MiB: the two oldest plain objects
        put("big", 2 * MIB);
        assertThat(master.exists("soft0")).isTrue();
        assertThat(master.exists("soft1")).isTrue();
        assertThat(master.exists("hard")).isTrue();
        assertThat(master.exists("plain0")).isFalse();
        // now only pinned ones and recent plain ones; make every plain object leased so that only pins remain
        for (int i = 0; i < 6; i++) master.getReplicaList("plain" + i);
        master.getReplicaList("big");
        put("big2", 2 * MIB);
        assertThat(master.exists("hard")).as("hard pin is never evicted").isTrue();
        assertThat(master.exists("soft0"))
                .as("soft pins go when nothing else can")
                .isFalse();
        assertThat(master.exists("big2")).isTrue();
    }

    @Test
    void aSoftPinLapsesAfterItsTtl() {
        master.mountSegment("n1", "s1", 4 * MIB);
        put("soft", MIB, new ReplicateConfig(1, true, false, List.of()));
        clock.advance(Duration.ofSeconds(1));
        put("plain", MIB);
        clock.advance(Duration.ofMinutes(31));
        master.getReplicaList("plain");
        clock.advance(Duration.ofSeconds(11)); // plain's lease is newer than soft's put, but soft's pin has lapsed
        put("x", 2 * MIB); // needs room: evicts the oldest unpinned, which is now "soft"
        assertThat(master.exists("soft")).isFalse();
        assertThat(master.exists("plain")).isTrue();
    }

    @Test
    void hardPinnedObjectsMakePutsFailRatherThanBeEvicted() {
        master.mountSegment("n1", "s1", 2 * MIB);
        put("a", MIB, new ReplicateConfig(1, false, true, List.of()));
        put("b", MIB, new ReplicateConfig(1, false, true, List.of()));
        assertThat(start("c", MIB).status()).isEqualTo(PutStartResult.Status.NO_SPACE);
        assertThat(master.exists("a")).isTrue();
        assertThat(master.exists("b")).isTrue();
    }

    @Test
    void replicasAreOnDistinctSegmentsBestEffort() {
        for (int i = 0; i < 3; i++) master.mountSegment("n" + i, "s" + i, 16 * MIB);
        for (int k = 0; k < 50; k++) {
            PutStartResult r = master.putStart("k" + k, 64 * KIB, 1, ReplicateConfig.replicas(2));
            assertThat(r.replicas()).hasSize(2);
            assertThat(r.replicas().stream().map(Replica::segment).distinct()).hasSize(2);
        }
        PutStartResult r = master.putStart("many", 64 * KIB, 1, ReplicateConfig.replicas(5));
        assertThat(r.status()).isEqualTo(PutStartResult.Status.STARTED);
        assertThat(r.replicas()).as("only 3 segments: best effort").hasSize(3);
        assertThat(r.replicas().stream().map(Replica::segment).distinct()).hasSize(3);
    }

    @Test
    void preferredSegmentsComeFirst() {
        for (int i = 0; i < 4; i++) master.mountSegment("n" + i, "s" + i, 16 * MIB);
        for (int k = 0; k < 20; k++) {
            PutStartResult r =
                    master.putStart("k" + k, KIB, 1, new ReplicateConfig(2, false, false, List.of("s3", "s1")));
            assertThat(r.replicas()).extracting(Replica::segment).containsExactly("s3", "s1");
        }
    }

    @Test
    void freeRatioFirstPicksTheEmptiestSegment() {
        master = new StoreMaster(MasterConfig.defaults().withStrategy(AllocationStrategy.FREE_RATIO_FIRST), clock);
        master.mountSegment("n1", "a", 16 * MIB);
        master.mountSegment("n2", "b", 16 * MIB);
        master.mountSegment("n3", "c", 32 * MIB);
        List<String> seen = new ArrayList<>();
        for (int k = 0; k < 8; k++)
            seen.add(master.putStart("k" + k, 4 * MIB, 1, ReplicateConfig.DEFAULT)
                    .replicas()
                    .getFirst()
                    .segment());
        // all at ratio 1: a, b by name; then c (still 1.0) twice; then ties at 0.75 by name, and so on
        assertThat(seen).containsExactly("a", "b", "c", "c", "a", "b", "c", "c");
    }

    @Test
    void abandonedPutsStartedAtDifferentTimesAreEachReclaimedAtTheirOwnReleaseTime() {
        master.mountSegment("n1", "s1", 16 * MIB);
        start("a", MIB); // abandoned at t = 0
        clock.advance(Duration.ofSeconds(100));
        put("done", MIB); // completes: not a candidate
        start("b", MIB); // abandoned at t = 100
        clock.advance(Duration.ofSeconds(500)); // t = 600: a's release time
        master.ping("n1");
        master.tick();
        assertThat(master.stats().processing()).isEqualTo(1);
        assertThat(master.stats().reclaimedPuts()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(99)); // t = 699: b not yet
        start("c", MIB); // a put runs the reclaim too
        assertThat(master.stats().reclaimedPuts()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(1)); // t = 700: b's release time
        start("d", MIB);
        assertThat(master.stats().reclaimedPuts()).isEqualTo(2);
        assertThat(master.stats().processing()).isEqualTo(2); // c and d
        assertThat(master.stats().bytesUsed()).isEqualTo(3 * MIB);
    }

    @Test
    void theRandomStrategyShufflesTheSegmentsInNameOrderWithTheSeededRandom() {
        long seed = 11;
        StoreMaster m = new StoreMaster(MasterConfig.defaults().withSeed(seed), new ManualClock());
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            m.mountSegment("n" + i, "s" + i, 64 * MIB);
            names.add("s" + i);
        }
        java.util.Random reference = new java.util.Random(seed);
        for (int k = 0; k < 30; k++) {
            List<String> order = new ArrayList<>(names);
            java.util.Collections.shuffle(order, reference);
            PutStartResult r = m.putStart("k" + k, MIB, 1, ReplicateConfig.replicas(2));
            assertThat(r.replicas().stream().map(Replica::segment).toList())
                    .as("put %d", k)
                    .isEqualTo(order.subList(0, 2));
            m.putEnd("k" + k, r.putId());
        }
    }

    @Test
    void theRandomStrategyIsDeterministicPerSeed() {
        assertThat(placements(7)).isEqualTo(placements(7));
        assertThat(placements(7)).isNotEqualTo(placements(8));
    }

    private List<String> placements(long seed) {
        StoreMaster m = new StoreMaster(MasterConfig.defaults().withSeed(seed), new ManualClock());
        for (int i = 0; i < 8; i++) m.mountSegment("n" + i, "s" + i, 64 * MIB);
        List<String> out = new ArrayList<>();
        for (int k = 0; k < 40; k++) {
            PutStartResult r = m.putStart("k" + k, 3 * MIB, 1, ReplicateConfig.replicas(2));
            out.add(r.replicas().toString());
            m.putEnd("k" + k, r.putId());
        }
        return out;
    }

    @Test
    void aSilentClientLosesItsSegmentsAndSurvivingReplicasStillServe() {
        master.mountSegment("n1", "s1", 16 * MIB);
        master.mountSegment("n2", "s2", 16 * MIB);
        put("both", MIB, ReplicateConfig.replicas(2));
        put("only1", MIB, new ReplicateConfig(1, false, false, List.of("s1")));
        put("only2", MIB, new ReplicateConfig(1, false, false, List.of("s2")));
        for (int t = 0; t < 10; t++) {
            clock.advance(Duration.ofSeconds(1));
            master.ping("n2"); // n1 has gone silent (killed)
            master.tick();
        }
        assertThat(master.segments()).hasSize(2);
        clock.advance(Duration.ofMillis(500));
        master.ping("n2");
        master.tick();
        assertThat(master.segments()).extracting(s -> s.name()).containsExactly("s2");
        assertThat(master.exists("only1"))
                .as("its only replica was on the dead node")
                .isFalse();
        assertThat(master.getReplicaList("only1").status()).isEqualTo(ReplicaList.Status.NOT_FOUND);
        ReplicaList both = master.getReplicaList("both");
        assertThat(both.found()).isTrue();
        assertThat(both.replicas()).extracting(Replica::segment).containsExactly("s2");
        assertThat(master.exists("only2")).isTrue();
        MasterStats s = master.stats();
        assertThat(s.capacityBytes()).isEqualTo(16 * MIB);
        assertThat(s.bytesUsed()).isEqualTo(2 * MIB);
        assertThat(s.droppedObjects()).isEqualTo(1);
        // the node comes back: the master no longer knows it, so it remounts
        assertThat(master.ping("n1")).isFalse();
        assertThat(master.mountSegment("n1", "s1", 16 * MIB)).isEqualTo(MountStatus.MOUNTED);
        assertThat(master.ping("n1")).isTrue();
        assertThat(master.mountSegment("n1", "s1", 16 * MIB)).isEqualTo(MountStatus.ALREADY_MOUNTED);
        assertThat(master.mountSegment("other", "s1", 16 * MIB)).isEqualTo(MountStatus.CONFLICT);
        assertThat(master.stats().capacityBytes()).isEqualTo(32 * MIB);
    }

    @Test
    void unmountDropsProcessingPutsWhoseSegmentsAreGone() {
        master.mountSegment("n1", "s1", 16 * MIB);
        PutStartResult r = start("k", MIB);
        assertThat(master.unmountSegment("s1")).isTrue();
        assertThat(master.putEnd("k", r.putId())).isEqualTo(EndStatus.NOT_FOUND);
        assertThat(master.exists("k")).isFalse();
        assertThat(master.stats().bytesUsed()).isZero();
        assertThat(master.stats().processing()).isZero();
    }

    @Test
    void allocationFailureEvictsThenSucceeds() {
        master.mountSegment("n1", "s1", 8 * MIB);
        for (int i = 0; i < 4; i++) put("k" + i, 2 * MIB - 64 * KIB); // 7.75 MiB used but below 90 %? 7.75/8 = 96.9 %
        MasterStats before = master.stats();
        assertThat(before.evictionRuns()).isGreaterThanOrEqualTo(1);
        PutStartResult r = start("big", 4 * MIB);
        assertThat(r.status()).isEqualTo(PutStartResult.Status.STARTED);
        assertThat(master.stats().evictionRuns()).isGreaterThan(before.evictionRuns());
    }

    @Test
    void noSegmentsMeansNoSpace() {
        assertThat(start("k", 1).status()).isEqualTo(PutStartResult.Status.NO_SPACE);
    }

    @Test
    void metadataIsShardedByKeyHashOverAllShards() {
        boolean[] hit = new boolean[1024];
        for (int i = 0; i < 100_000; i++) hit[master.shardOf("key-" + i)] = true;
        int n = 0;
        for (boolean b : hit) if (b) n++;
        assertThat(n).isEqualTo(1024);
    }

    /** A batch put is the single calls in order under one hold of the space lock: the same decisions, and nothing started when an argument is bad. */
    @Test
    void batchPutsDecideAsTheSingleCallsInOrder() {
        ManualClock c2 = new ManualClock();
        StoreMaster twin = new StoreMaster(MasterConfig.defaults(), c2);
        for (StoreMaster m : List.of(master, twin)) for (int s = 0; s < 4; s++) m.mountSegment("n1", "s" + s, 4 * MIB);
        List<String> keys = List.of("a", "b", "a", "c", "d", "e", "f", "g", "h", "i");
        long[] lengths = {MIB, 2 * MIB, MIB, 3 * MIB, MIB, 3 * MIB, 2 * MIB, 3 * MIB, 3 * MIB, 3 * MIB
        }; // more than fits: NO_SPACE at the end
        int[] crcs = new int[keys.size()];
        List<PutStartResult> single = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++)
            single.add(master.putStart(keys.get(i), lengths[i], 0, ReplicateConfig.DEFAULT));
        List<PutStartResult> batch = twin.batchPutStart(keys, lengths, crcs, ReplicateConfig.DEFAULT);
        assertThat(batch).isEqualTo(single);
        assertThat(batch)
                .extracting(PutStartResult::status)
                .contains(
                        PutStartResult.Status.STARTED,
                        PutStartResult.Status.IN_PROGRESS,
                        PutStartResult.Status.NO_SPACE);

        List<String> ended = List.of("a", "b", "c", "zz");
        long[] ids = {
            single.get(0).putId(), single.get(1).putId(), single.get(3).putId(), 99
        };
        List<EndStatus> one = new ArrayList<>();
        for (int i = 0; i < ended.size(); i++) one.add(master.putEnd(ended.get(i), ids[i]));
        assertThat(twin.batchPutEnd(ended, ids))
                .isEqualTo(one)
                .containsExactly(EndStatus.OK, EndStatus.OK, EndStatus.OK, EndStatus.NOT_FOUND);
        assertThat(twin.stats()).isEqualTo(master.stats());

        assertThatThrownBy(() ->
                        twin.batchPutStart(List.of("x", "y"), new long[] {MIB, 0}, new int[2], ReplicateConfig.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(twin.getReplicaList("x").status())
                .as("a bad argument starts none of the batch")
                .isEqualTo(ReplicaList.Status.NOT_FOUND);
        assertThat(twin.stats().processing()).isEqualTo(master.stats().processing());
    }
}
