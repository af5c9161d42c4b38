package dev.kvlab.store.master;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.testkit.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** What the simulator relies on: the same seed and the same calls at the same clock readings give the same history. */
class StoreMasterDeterminismTest {

    static String replay(long seed) {
        return replay(seed, false);
    }

    /**
     * @param singleThreaded a {@link StoreMaster#singleThreaded} master (the simulator's)
     */
    static String replay(long seed, boolean singleThreaded) {
        ManualClock clock = new ManualClock();
        MasterConfig config = MasterConfig.defaults().withSeed(seed);
        StoreMaster m = singleThreaded ? StoreMaster.singleThreaded(config, clock) : new StoreMaster(config, clock);
        List<String> lateKeys = new ArrayList<>();
        List<Long> lateIds = new ArrayList<>();
        for (int s = 0; s < 4; s++) m.mountSegment("n" + s, "s" + s, 64L << 20);
        SplittableRandom r = new SplittableRandom(99); // the workload, independent of the master's seed
        StringBuilder log = new StringBuilder();
        for (int step = 0; step < 5000; step++) {
            clock.advance(Duration.ofMillis(r.nextInt(50)));
            String key = "t/k" + r.nextInt(800);
            switch (r.nextInt(10)) {
                case 0, 1, 2, 3 -> {
                    ReplicateConfig rc = new ReplicateConfig(1 + r.nextInt(2), r.nextInt(10) == 0, false, List.of());
                    PutStartResult p = m.putStart(key, 1 + r.nextInt(2 << 20), 7, rc);
                    log.append(p.status()).append(p.replicas()).append(';');
                    if (p.status() == PutStartResult.Status.STARTED) {
                        if (r.nextInt(20) == 0) log.append(m.putRevoke(key, p.putId()));
                        else if (r.nextInt(8)
                                == 0) { // ended later, out of order: taken over or reclaimed meanwhile, some
                            lateKeys.add(key);
                            lateIds.add(p.putId());
                        } else if (r.nextInt(50) != 0) log.append(m.putEnd(key, p.putId())); // some are abandoned
                    }
                }
                case 4, 5, 6, 7 -> {
                    ReplicaList l = m.getReplicaList(key);
                    log.append(l.status())
                            .append(l.replicas())
                            .append(l.leaseDeadlineNanos())
                            .append(';');
                }
                case 8 -> {
                    log.append(m.remove(key)).append(';');
                    if (!lateKeys.isEmpty()) {
                        int i = r.nextInt(lateKeys.size());
                        log.append(m.putEnd(lateKeys.remove(i), lateIds.remove(i)))
                                .append(';');
                    }
                }
                default -> {
                    for (int s = 0; s < 4; s++) if (s != 3 || step < 2500) m.ping("n" + s); // n3 goes silent half-way
                    m.tick();
                }
            }
        }
        return log.append(m.stats()).toString();
    }

    @Test
    void theSameSeedAndCallsGiveTheSameHistory() {
        String a = replay(1), b = replay(1);
        assertThat(a).isEqualTo(b);
        assertThat(a).contains("evictedObjects=").doesNotContain("evictedObjects=0,");
        assertThat(replay(2)).isNotEqualTo(a);
    }

    @Test
    void aSingleThreadedMasterMakesTheSameDecisions() {
        String a = replay(3);
        assertThat(replay(3, true)).isEqualTo(a);
        assertThat(a).contains("OK").contains("NOT_FOUND"); // late put ends both completed and refused
    }
}
