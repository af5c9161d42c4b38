package dev.kvlab.workloads.arrival;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.ArrivalProcess;
import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.WorkloadFormatException;
import dev.kvlab.workloads.api.WorkloadSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;

class ArrivalProcessTest {

    static final Namespace NS = Namespace.of("m");
    static final WorkloadSpec MANY = new WorkloadSpec.SharedPrefix(100, 200, 64, 64, 8, "random", 64);

    static long[] times(ArrivalSpec arrival, long seed) {
        List<Long> t = new ArrayList<>();
        try (RequestSource s = Workloads.open(MANY, arrival, NS, seed)) {
            s.forEachRemaining(r -> t.add(r.arrivalNanos()));
        }
        return t.stream().mapToLong(Long::longValue).toArray();
    }

    static double[] gapStats(long[] t) {
        double sum = 0, sq = 0;
        int n = t.length - 1;
        for (int i = 1; i < t.length; i++) {
            double g = (t[i] - t[i - 1]) / 1e9;
            sum += g;
            sq += g * g;
        }
        double mean = sum / n;
        double var = sq / n - mean * mean;
        return new double[] {mean, Math.sqrt(var) / mean};
    }

    @Test
    void constantRateIsExact() {
        long[] t = times(ArrivalSpec.constant(250), 1);
        assertThat(t[0]).isZero();
        assertThat(t[1]).isEqualTo(4_000_000L);
        assertThat(t[19_999]).isEqualTo(Math.round(19_999 * 1e9 / 250));
    }

    @Test
    void poissonHasTheRateAndUnitCoefficientOfVariation() {
        long[] t = times(ArrivalSpec.poisson(100), 1);
        double[] s = gapStats(t);
        assertThat(t[0]).isZero();
        assertThat(s[0]).isCloseTo(0.01, within(0.0003));
        assertThat(s[1]).isCloseTo(1.0, within(0.04));
    }

    @Test
    void gammaBurstinessSetsTheCoefficientOfVariation() {
        for (double k : new double[] {0.25, 1, 4}) {
            double[] s = gapStats(times(ArrivalSpec.gamma(50, k), 3));
            assertThat(s[0]).as("mean gap, burstiness " + k).isCloseTo(0.02, within(0.02 * 0.06));
            assertThat(s[1]).as("CV, burstiness " + k).isCloseTo(1 / Math.sqrt(k), within(0.06 / Math.sqrt(k)));
        }
    }

    @Test
    void arrivalsAreSeeded() {
        assertThat(times(ArrivalSpec.poisson(10), 5)).containsExactly(times(ArrivalSpec.poisson(10), 5));
        assertThat(times(ArrivalSpec.poisson(10), 5)).isNotEqualTo(times(ArrivalSpec.poisson(10), 6));
        assertThat(times(ArrivalSpec.gamma(10, 0.5), 5)).containsExactly(times(ArrivalSpec.gamma(10, 0.5), 5));
    }

    @Test
    void traceTimestampsScaleWithTheSpeedup() {
        List<Request> base = List.of(
                new Request(0, 0, "a", 5, 1, 512, new long[] {1}, NS),
                new Request(1, 3_000_000, "b", 5, 1, 512, new long[] {1}, NS),
                new Request(2, 10_000_001, "c", 5, 1, 512, new long[] {1}, NS));
        var src = new dev.kvlab.workloads.internal.arrival.RetimedSource(source(base), ArrivalSpec.trace(2), 0);
        List<Long> t = new ArrayList<>();
        src.forEachRemaining(r -> t.add(r.arrivalNanos()));
        assertThat(t).containsExactly(0L, 1_500_000L, 5_000_001L); // rounded half up
    }

    static RequestSource source(List<Request> rs) {
        var it = rs.iterator();
        return new RequestSource() {
            public boolean hasNext() {
                return it.hasNext();
            }

            public Request next() {
                return it.next();
            }

            public String describe() {
                return "list";
            }

            public void close() {}
        };
    }

    /** A minimal discrete-event driver following the ArrivalProcess contract; returns the releases. */
    static List<ArrivalProcess.Release> drive(
            ArrivalProcess p, ToLongFunction<Request> serviceNanos, int[] maxInFlight, Map<Long, Long> completions) {
        List<ArrivalProcess.Release> out = new ArrayList<>();
        PriorityQueue<long[]> events =
                new PriorityQueue<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        long now = 0;
        while (true) {
            long tr = p.nextReleaseNanos();
            long tc = events.isEmpty() ? ArrivalProcess.NONE : events.peek()[0];
            if (tr == ArrivalProcess.NONE && tc == ArrivalProcess.NONE) break;
            if (tr <= tc) {
                ArrivalProcess.Release r = p.release();
                assertThat(r.releaseNanos()).isGreaterThanOrEqualTo(now);
                now = r.releaseNanos();
                out.add(r);
                maxInFlight[0] = Math.max(maxInFlight[0], p.inFlight());
                events.add(new long[] {
                    now + serviceNanos.applyAsLong(r.request()), r.request().id()
                });
            } else {
                long[] e = events.poll();
                now = e[0];
                completions.put(e[1], e[0]);
                p.complete(e[1], e[0]);
            }
        }
        assertThat(p.exhausted()).isTrue();
        assertThat(p.inFlight()).isZero();
        return out;
    }

    @Test
    void closedLoopKeepsUsersBusyAndConversationsInOrder() {
        var chat = new WorkloadSpec.Chat(10, 5, 1, 200, 0, 50, 40, 64);
        int users = 4;
        long think = 2_000_000;
        ArrivalProcess p = Workloads.schedule(chat, ArrivalSpec.closed(users, 2), NS, 1);
        int[] max = {0};
        Map<Long, Long> done = new HashMap<>();
        List<ArrivalProcess.Release> rel = drive(p, r -> 1_000_000L + r.inputTokens() * 10_000L, max, done);
        assertThat(rel).hasSize(50);
        assertThat(max[0]).isEqualTo(users);
        // the first `users` start at 0; intended arrival = release time
        assertThat(rel.subList(0, users))
                .allSatisfy(r -> assertThat(r.releaseNanos()).isZero());
        assertThat(rel).allSatisfy(r -> assertThat(r.waitNanos()).isZero());
        // rounds of one user never overlap and are separated by the think time, in round order
        Map<String, long[]> lastOfSession = new HashMap<>(); // session -> {request id, completion}
        for (ArrivalProcess.Release r : rel) {
            long[] prev = lastOfSession.get(r.request().session());
            if (prev != null) {
                assertThat(r.releaseNanos()).isGreaterThanOrEqualTo(prev[1] + think);
                assertThat(r.request().inputTokens()).isGreaterThan((int) prev[2]);
            }
            lastOfSession.put(r.request().session(), new long[] {
                r.request().id(), done.get(r.request().id()), r.request().inputTokens()
            });
        }
        // every release after the first wave happens at some completion + think
        var frees = new java.util.HashSet<Long>();
        done.values().forEach(c -> frees.add(c + think));
        assertThat(rel.subList(users, rel.size()))
                .allSatisfy(r -> assertThat(frees).contains(r.releaseNanos()));
    }

    @Test
    void closedLoopOverATraceIsNUsersPullingRequests() {
        List<Request> rs = new ArrayList<>();
        for (int i = 0; i < 30; i++) rs.add(new Request(i, 123_456L * i, "req-" + i, 5, 1, 512, new long[] {i}, NS));
        var p = new dev.kvlab.workloads.internal.arrival.ClosedLoopProcess(source(rs), 2, 0, 16);
        int[] max = {0};
        List<ArrivalProcess.Release> rel = drive(p, r -> 1_000_000L, max, new HashMap<>());
        assertThat(max[0]).isEqualTo(2);
        assertThat(rel)
                .extracting(r -> r.request().id())
                .containsExactlyElementsOf(rs.stream().map(Request::id).toList());
        for (int i = 0; i < 30; i++) assertThat(rel.get(i).releaseNanos()).isEqualTo((i / 2) * 1_000_000L);
    }

    @Test
    void closedLoopNeverOverlapsASession() {
        var spec = new WorkloadSpec.SharedPrefix(3, 10, 64, 64, 8, "random", 64);
        ArrivalProcess p = Workloads.schedule(spec, ArrivalSpec.closed(2, 0), NS, 1);
        int[] max = {0};
        Map<Long, Long> done = new HashMap<>();
        List<ArrivalProcess.Release> rel = drive(p, r -> 1_000_000L + r.id() * 1000, max, done);
        assertThat(rel).hasSize(30);
        assertThat(max[0]).isEqualTo(2);
        Map<String, Long> busyUntil = new HashMap<>();
        for (ArrivalProcess.Release r : rel) {
            Long until = busyUntil.get(r.request().session());
            if (until != null) assertThat(r.releaseNanos()).isGreaterThanOrEqualTo(until);
            busyUntil.put(r.request().session(), done.get(r.request().id()));
        }
    }

    @Test
    void maxConcurrencyCapsAnOpenLoopAndKeepsTheIntendedArrival() {
        var spec = new WorkloadSpec.SharedPrefix(1, 200, 64, 64, 8, "grouped", 64);
        ArrivalProcess p = Workloads.schedule(spec, ArrivalSpec.constant(1000).withMaxConcurrency(3), NS, 1);
        int[] max = {0};
        List<ArrivalProcess.Release> rel = drive(p, r -> 10_000_000L, max, new HashMap<>()); // 10 ms each, 1 ms apart
        assertThat(max[0]).isEqualTo(3);
        assertThat(rel).hasSize(200);
        for (int i = 0; i < rel.size(); i++) {
            assertThat(rel.get(i).request().arrivalNanos()).isEqualTo(i * 1_000_000L); // open-loop intended time
            assertThat(rel.get(i).releaseNanos())
                    .isGreaterThanOrEqualTo(rel.get(i).request().arrivalNanos());
        }
        // throughput is capped at 3 per 10 ms: the last one waits a long time
        assertThat(rel.get(199).waitNanos()).isGreaterThan(400_000_000L);
        // uncapped: released exactly at arrival, all overlapping
        int[] max2 = {0};
        List<ArrivalProcess.Release> open = drive(
                Workloads.schedule(spec, ArrivalSpec.constant(1000), NS, 1), r -> 10_000_000L, max2, new HashMap<>());
        assertThat(open).allSatisfy(r -> assertThat(r.waitNanos()).isZero());
        // 10 overlap, plus one: a release due at the same instant as a completion goes first (driving contract)
        assertThat(max2[0]).isEqualTo(11);
    }

    @Test
    void completionsAreChecked() {
        ArrivalProcess p = Workloads.schedule(MANY, ArrivalSpec.closed(1, 0), NS, 1);
        var r = p.release();
        assertThat(p.nextReleaseNanos()).isEqualTo(ArrivalProcess.NONE);
        assertThatThrownBy(p::release).hasMessageContaining("waiting for a completion");
        assertThatThrownBy(() -> p.complete(r.request().id() + 1, 5)).hasMessageContaining("not in flight");
        p.complete(r.request().id(), 5);
        assertThat(p.nextReleaseNanos()).isEqualTo(5);
    }

    @Test
    void badArrivalSpecsNameTheField() {
        assertThatThrownBy(() -> Workloads.open(MANY, ArrivalSpec.poisson(0), NS, 1))
                .isInstanceOf(WorkloadFormatException.class)
                .hasMessage("arrival.rate: must be > 0 requests/s for process 'poisson', got 0.0");
        assertThatThrownBy(() -> Workloads.schedule(MANY, ArrivalSpec.closed(0, 0), NS, 1))
                .hasMessage("arrival.users: must be >= 1 for process 'closed', got 0");
        assertThatThrownBy(() -> Workloads.schedule(MANY, new ArrivalSpec("burst", 1, 0, 0, 0, 0, 0), NS, 1))
                .hasMessageStartingWith(
                        "arrival.process: must be one of [trace, poisson, gamma, constant, closed], got 'burst'");
        assertThatThrownBy(() -> Workloads.schedule(MANY, ArrivalSpec.closed(2, -1), NS, 1))
                .hasMessage("arrival.think_ms: must be >= 0, got -1.0");
        assertThatThrownBy(() -> Workloads.open(MANY, ArrivalSpec.closed(2, 0), NS, 1))
                .hasMessageContaining("Workloads.schedule");
    }
}
