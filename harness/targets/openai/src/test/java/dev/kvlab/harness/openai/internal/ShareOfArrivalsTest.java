package dev.kvlab.harness.openai.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.Shard;
import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.ArrivalProcess;
import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.WorkloadSpec;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A request-split shard's arrivals: the N shards' requests partition the stream (each request in exactly the shard
 * {@code id mod N + 1}), each sent at the time the whole stream sends it, with the same content.
 */
class ShareOfArrivalsTest {

    static final Namespace NS = Namespace.of("m");
    static final WorkloadSpec SPEC = new WorkloadSpec.SharedPrefix(7, 9, 64, 32, 4, "random", 16);

    /** id → release time and request, of the process driven to its end (each request completed as it is released). */
    private static Map<Long, Object[]> drain(ArrivalProcess p) {
        Map<Long, Object[]> out = new LinkedHashMap<>();
        try (p) {
            while (!p.exhausted()) {
                long t = p.nextReleaseNanos();
                ArrivalProcess.Release r = p.release();
                assertThat(r.releaseNanos()).isEqualTo(t);
                out.put(r.request().id(), new Object[] {t, r.request()});
                p.complete(r.request().id(), t);
            }
            assertThat(p.nextReleaseNanos()).isEqualTo(ArrivalProcess.NONE);
        }
        return out;
    }

    @Test
    void theSharesPartitionTheStreamAtItsIntendedTimes() {
        for (ArrivalSpec arrival :
                new ArrivalSpec[] {ArrivalSpec.poisson(20), ArrivalSpec.gamma(5, 0.3), ArrivalSpec.trace(1)}) {
            Map<Long, Object[]> whole = drain(Workloads.schedule(SPEC, arrival, NS, 11));
            assertThat(whole).hasSize(63);
            int n = 4;
            Map<Long, Object[]> union = new LinkedHashMap<>();
            for (int k = 1; k <= n; k++) {
                Shard s = new Shard(k, n);
                Map<Long, Object[]> share = drain(new ShareOfArrivals(Workloads.schedule(SPEC, arrival, NS, 11), s));
                assertThat(share.size())
                        .as(arrival.process() + " shard " + s.label())
                        .isBetween(63 / n, 63 / n + 1);
                for (var e : share.entrySet()) {
                    assertThat(e.getKey() % n)
                            .as("request " + e.getKey() + " in shard " + s.label())
                            .isEqualTo(k - 1);
                    assertThat(e.getValue())
                            .as(arrival.process() + " request " + e.getKey())
                            .isEqualTo(whole.get(e.getKey()));
                    assertThat(union.put(e.getKey(), e.getValue()))
                            .as("request " + e.getKey() + " in one shard only")
                            .isNull();
                }
            }
            assertThat(union.keySet()).containsExactlyInAnyOrderElementsOf(whole.keySet());
        }
    }

    @Test
    void oneShardOfOneIsTheWholeStream() {
        Map<Long, Object[]> whole = drain(Workloads.schedule(SPEC, ArrivalSpec.poisson(20), NS, 5));
        Map<Long, Object[]> one =
                drain(new ShareOfArrivals(Workloads.schedule(SPEC, ArrivalSpec.poisson(20), NS, 5), new Shard(1, 1)));
        assertThat(one.keySet()).containsExactlyElementsOf(whole.keySet());
        for (long id : whole.keySet()) assertThat(one.get(id)).isEqualTo(whole.get(id));
    }
}
