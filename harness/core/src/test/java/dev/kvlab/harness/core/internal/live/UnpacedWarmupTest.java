package dev.kvlab.harness.core.internal.live;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.ArrivalProcess;
import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.WorkloadSpec;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link UnpacedWarmup}: a warm-up pass sends the same requests in the same order as the paced one, never more than its
 * cap in flight, each as soon as a slot frees (not at its arrival time), so a pass whose requests take 1 ms each ends
 * after about requests / cap ms whatever the workload's rate.
 */
class UnpacedWarmupTest {

    static final Namespace NS = Namespace.of("m");
    static final WorkloadSpec SPEC = new WorkloadSpec.SharedPrefix(7, 9, 64, 32, 4, "random", 16);

    @Test
    void sameRequestsInOrderAtMostCapInFlightAsFastAsTheyComplete() {
        List<Long> paced = new ArrayList<>();
        try (ArrivalProcess p = Workloads.schedule(SPEC, ArrivalSpec.poisson(0.5), NS, 3)) {
            while (p.nextReleaseNanos() != ArrivalProcess.NONE) {
                var r = p.release();
                paced.add(r.request().id());
                p.complete(r.request().id(), r.releaseNanos());
            }
        }
        int cap = 3;
        long serviceNanos = 1_000_000;
        List<Long> sent = new ArrayList<>();
        ArrayDeque<long[]> running = new ArrayDeque<>(); // {id, completes at}
        long now = 0;
        try (ArrivalProcess p = new UnpacedWarmup(Workloads.schedule(SPEC, ArrivalSpec.poisson(0.5), NS, 3), cap)) {
            while (true) {
                long t;
                while ((t = p.nextReleaseNanos()) != ArrivalProcess.NONE && t <= now) {
                    var r = p.release();
                    assertThat(r.releaseNanos()).isLessThanOrEqualTo(now);
                    sent.add(r.request().id());
                    running.add(new long[] {r.request().id(), now + serviceNanos});
                    assertThat(p.inFlight()).isLessThanOrEqualTo(cap);
                }
                if (running.isEmpty()) break;
                long[] done = running.poll();
                now = done[1];
                p.complete(done[0], now);
            }
            assertThat(p.exhausted()).isTrue();
        }
        assertThat(sent).isEqualTo(paced);
        // 63 requests at 0.5/s would take about two minutes paced; unpaced, 3 at a time for 1 ms each
        assertThat(now).isLessThanOrEqualTo((long) Math.ceil(paced.size() / (double) cap) * serviceNanos);
    }

    @Test
    void aLimitSendsOnlyTheFirstRequestsAndThenIsExhausted() {
        List<Long> sent = new ArrayList<>();
        try (ArrivalProcess p = new UnpacedWarmup(Workloads.schedule(SPEC, ArrivalSpec.poisson(0.5), NS, 3), 4, 6)) {
            long now = 0;
            while (p.nextReleaseNanos() != ArrivalProcess.NONE) {
                var r = p.release();
                sent.add(r.request().id());
                p.complete(r.request().id(), ++now);
            }
            assertThat(p.exhausted()).isTrue();
            assertThat(p.inFlight()).isZero();
        }
        assertThat(sent).hasSize(6);
    }
}
