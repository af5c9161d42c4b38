package dev.kvlab.harness.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.run.CellRunner;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The live view of a sim cell: what the sampler sees, what the meters read, and that observing changes nothing. */
class CellSamplerTest {

    private static Map<String, Object> withoutWall(CellResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        r.json().forEach(m::put);
        m.keySet().removeIf(k -> k.contains("wall"));
        return m;
    }

    @Test
    void observingACellChangesNothingAndItsLastSampleMatchesTheSummary() {
        RunConfig c = SimRuns.config("cache_state=hot", "tiers=remote-only", "policy=fetch");
        CellResult plain = new CellRunner().run(c);
        AtomicLong fakeWall = new AtomicLong();
        CellSampler sampler = new CellSampler(
                () -> fakeWall.addAndGet(300_000_000L), Duration.ofSeconds(1)); // a sample every 4th interval
        CellResult watched = new CellRunner().run(c, System.nanoTime(), sampler);
        assertThat(withoutWall(watched)).isEqualTo(withoutWall(plain));

        CellSample s = sampler.latest();
        assertThat(s.last()).isTrue();
        assertThat(sampler.samples()).isGreaterThan(1);
        assertThat(s.requests()).isEqualTo(plain.summary().get(Columns.REQUESTS));
        assertThat(s.completed()).isEqualTo(plain.summary().get(Columns.COMPLETED));
        assertThat(s.fetchedBytes())
                .isEqualTo(plain.summary().get(Columns.FETCHED_BYTES))
                .isPositive();
        assertThat(s.fallbacks()).isEqualTo(plain.summary().get(Columns.FALLBACKS));
        assertThat(s.wrongHitsUsed()).isZero();
        assertThat(s.remoteHitRatio()).isEqualTo(plain.summary().get(Columns.REMOTE_HIT_RATIO));
        assertThat(s.runSeconds())
                .isEqualTo(plain.summary().get(Columns.SIMULATED_SECONDS), org.assertj.core.data.Offset.offset(1.0));
        assertThat(s.inFlight()).isZero();
        assertThat(s.store()).isNotNull();
        assertThat(s.store().objects()).isEqualTo(((Number) plain.extras().get("store_objects")).longValue());
        assertThat(s.storeCalls()).containsKeys("exists", "get_replica_list", "put_start", "put_end");
        assertThat(s.storeCalls().get("get_replica_list")).isPositive();
        // percentiles of the last stretch only: bounded by the whole cell's max
        double lastMax = s.percentileMs(Metric.TTFT, CellSample.MAX);
        assertThat(lastMax).isLessThanOrEqualTo(plain.totals().get(Metric.TTFT).getMaxValue() / 1000.0 + 1e-9);
    }

    @Test
    void storeFiguresAreUnpublishedWhereKvlabsStorePathDoesNotServeTheCell() {
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        java.util.concurrent.atomic.AtomicReference<CellSample> latest =
                new java.util.concurrent.atomic.AtomicReference<>();
        try (CellMeters meters = new CellMeters(reg, new CellTags(Map.of("cell", "c01")), latest::get)) {
            for (boolean storePath : new boolean[] {true, false}) {
                latest.set(new CellSample(
                        2.0, Map.of(), 10, 9, 1, 8, 0.5, 0.25, 4096, 3, 0, 0, 0, null, Map.of(), Map.of(), false,
                        Map.of(), storePath));
                double bytes = reg.get("kvlab.cell.fetched.bytes").gauge().value();
                double fallbacks = reg.get("kvlab.cell.fallbacks").gauge().value();
                double wrong = reg.get("kvlab.cell.wrong.hits.used").gauge().value();
                if (storePath) {
                    assertThat(new double[] {bytes, fallbacks, wrong}).containsExactly(4096, 3, 0);
                } else {
                    // a real engine's own cache behind an endpoint: kvlab fetched nothing and audited nothing, so no 0
                    // is claimed
                    assertThat(java.util.List.of(bytes, fallbacks, wrong)).allMatch(v -> v.isNaN());
                }
                assertThat(reg.get("kvlab.cell.requests")
                                .tag("state", "completed")
                                .gauge()
                                .value())
                        .isEqualTo(9);
            }
        }
    }

    @Test
    void aLiveCellIsObservedToo() {
        RunConfig c = dev.kvlab.harness.api.run.ConfigTree.parse("""
                mode: live
                model: qwen2.5-0.5b
                hardware: h100
                transport: tcp
                cluster:
                  instances: 2
                store:
                  nodes: 2
                  capacity: 128MiB
                workload:
                  generator:
                    kind: shared-prefix
                    groups: 2
                    prompts_per_group: 3
                    prefix_tokens: 1024
                    suffix_tokens: 100
                    output_tokens: 8
                    block_tokens: 64
                  arrival:
                    process: closed
                    users: 2
                    think_ms: 100
                measurement:
                  interval: 200ms
                tiers: remote-only
                policy: fetch
                """, "live.yaml", null)
                .bind();
        CellSampler sampler = new CellSampler(System::nanoTime, Duration.ofMillis(100));
        CellResult r = new CellRunner().run(c, System.nanoTime(), sampler);
        CellSample s = sampler.latest();
        assertThat(s.last()).isTrue();
        assertThat(s.completed()).isEqualTo(r.summary().get(Columns.COMPLETED)).isPositive();
        assertThat(s.fetchedBytes()).isEqualTo(r.summary().get(Columns.FETCHED_BYTES));
        // the bundled store's master runs in this JVM: its own counters are published for live cells too
        assertThat(s.store()).as("the live store's stats").isNotNull();
        assertThat(s.store().objects()).isPositive();
        assertThat(s.store().bytesUsed()).isPositive();
        assertThat(s.storeCalls().get("put_start")).isPositive();
        assertThat(s.storeCalls().get("get_replica_list")).isPositive();
        assertThat(s.runSeconds()).isPositive();
    }

    @Test
    void aCellsMetersReadItsLatestSampleWithItsTags() {
        RunConfig c = SimRuns.config();
        CellSampler sampler = new CellSampler(System::nanoTime, Duration.ofMillis(100));
        SimpleMeterRegistry reg = new SimpleMeterRegistry();
        CellTags tags = CellTags.of("run-1", "c01-base", 0, c, Map.of("workload.rate", "3"));
        try (CellMeters meters = new CellMeters(reg, tags, sampler::latest)) {
            Gauge completed = reg.get("kvlab.cell.requests")
                    .tag("state", "completed")
                    .tag("cell", "c01-base")
                    .tag("workload_rate", "3")
                    .gauge();
            assertThat(completed.value()).isNaN(); // before the first sample: nothing to publish
            CellResult r = new CellRunner().run(c, System.nanoTime(), sampler);
            assertThat(completed.value()).isEqualTo((double) r.summary().get(Columns.COMPLETED));
            assertThat(reg.get("kvlab.cell.goodput").gauge().value()).isPositive();
            assertThat(reg.get("kvlab.cell.latency")
                            .tag("metric", "ttft")
                            .tag("stat", "p99")
                            .gauge()
                            .value())
                    .isPositive();
            assertThat(reg.get("kvlab.store.objects").gauge().value()).isPositive();
            assertThat(reg.get("kvlab.cell.hit.ratio")
                            .tag("tier", "local")
                            .gauge()
                            .value())
                    .isEqualTo(r.summary().get(Columns.LOCAL_HIT_RATIO));
            assertThat(meters.meters())
                    .allSatisfy(m -> assertThat(m.getId().getTag("run")).isEqualTo("run-1"));
            assertThat(meters.meters())
                    .allSatisfy(m -> assertThat(m.getId().getTag("tiers"))
                            .isEqualTo(c.tiers().label()));
        }
        assertThat(reg.getMeters()).isEmpty();
    }
}
