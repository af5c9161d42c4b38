package dev.kvlab.harness.live;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.harness.core.RunValidator;
import dev.kvlab.harness.core.internal.live.LiveCell;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.ReplicateConfig;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Live cells: the embedded store over real TCP, real KV bytes of Qwen2.5-0.5B (64-token blocks: 768 KiB). */
class LiveCellTest {

    static final String LIVE = """
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
                groups: 3
                prompts_per_group: 4
                prefix_tokens: 1024
                suffix_tokens: 100
                output_tokens: 8
                block_tokens: 64
              arrival:            # two users; the think time lets write-backs land before the next request looks up
                process: closed
                users: 2
                think_ms: 150
            """;

    static RunConfig config(String... sets) {
        ConfigTree t = ConfigTree.parse(LIVE, "live.yaml", null);
        for (String s : sets) t.set(s);
        return t.bind();
    }

    @Test
    void realBytesOverTcpAreFetchedVerifiedAndMeasured() {
        CellResult r = new CellRunner().run(config("tiers=remote-only", "policy=fetch"));
        var s = r.summary();
        assertThat(s.get(Columns.MODE)).isEqualTo("live");
        assertThat(s.get(Columns.COMPLETED)).isEqualTo(12);
        assertThat(s.get(Columns.WRONG_HITS_USED)).isZero();
        assertThat(s.get(Columns.FETCHED_BYTES))
                .isPositive()
                .isEqualTo((Long) r.extras().get("verified_blocks") * 64L * 12_288);
        assertThat(s.get(Columns.REMOTE_HIT_RATIO)).isGreaterThan(0.2);
        assertThat(s.get(Columns.WRITTEN_BACK_BYTES)).isPositive();
        assertThat((Double) r.extras().get("harness_overhead_us_per_request")).isPositive();
        // the harness's CPU: its loop's work and its I/O tasks, the store calls and byte work in them apart
        double cpu = (Double) r.extras().get("harness_cpu_us_per_request"),
                loop = (Double) r.extras().get("harness_loop_cpu_us_per_request"),
                io = (Double) r.extras().get("harness_io_cpu_us_per_request"),
                store = (Double) r.extras().get("store_call_cpu_us_per_request");
        assertThat(loop).isPositive();
        assertThat(io).isPositive();
        assertThat(cpu).isCloseTo(loop + io, org.assertj.core.api.Assertions.within(1e-6));
        assertThat(store)
                .as("768 KiB blocks written, fetched, verified and audited cost more than the harness's own part of it")
                .isGreaterThan(io);
        assertThat((Double) r.extras().get("harness_wait_cpu_us_per_request")).isNotNegative();
        assertThat(r.extras().get("store_backend")).isEqualTo("bundled/tcp");
        assertThat(r.extras().has("io_error")).isFalse();
        assertThat(s.get(Columns.SIMULATED_SECONDS)).isGreaterThan(0.3);
        assertThat(s.get(Columns.EMULATED_PARTS)).contains("gpu time");
        assertThat((Long) r.extras().get("audit_hits_checked"))
                .as("every hit went through the independent audit")
                .isPositive();
        assertThat((Long) r.extras().get("audit_wrong_hits")).isZero();
        assertThat((Long) r.extras().get("audit_unaudited_blocks"))
                .as("every block used was written by this cell")
                .isZero();
        assertThat(r.extras().names())
                .as("every figure of a live cell is a registered column")
                .allMatch(k -> Columns.named(k).isPresent());
    }

    @Test
    void theLiveCellCarriesItsSimTwinAndTheLinkItMeasured() {
        CellResult r = new CellRunner().run(config("tiers=remote-only", "policy=fetch"));
        assertThat((Double) r.extras().get("twin_ttft_p50_ms"))
                .as("the twin's prediction")
                .isPositive();
        assertThat((Double) r.extras().get("twin_fetch_p50_ms")).isPositive();
        assertThat((Double) r.extras().get("link_measured_bytes_per_s"))
                .as("measured at cell start")
                .isGreaterThan(1e7);
        assertThat(r.extras().get("link_source")).isEqualTo("measured at cell start");
    }

    @Test
    void theLiveMasterHonoursTheWatermark() {
        // 24 distinct 12-block prefixes (9 MiB each) written back into 96 MiB: 0.5 keeps it half empty, 0.95 lets it
        // fill
        String[] wm = {
            "tiers=remote-only",
            "policy=fetch",
            "cluster.instances=1",
            "store.capacity=96MiB",
            "store.eviction_ratio=0.05",
            "workload.generator={kind: shared-prefix, groups: 24, prompts_per_group: 1, prefix_tokens: 768, suffix_tokens: 32, output_tokens: 2, block_tokens: 64}",
            "workload.arrival.users=1",
            "workload.arrival.think_ms=5"
        };
        java.util.List<String> lo = new java.util.ArrayList<>(java.util.List.of(wm)),
                hi = new java.util.ArrayList<>(java.util.List.of(wm));
        lo.add("store.high_watermark=0.5");
        hi.add("store.high_watermark=0.95");
        double low = (Double)
                new CellRunner().run(config(lo.toArray(String[]::new))).extras().get("store_usage");
        double high = (Double)
                new CellRunner().run(config(hi.toArray(String[]::new))).extras().get("store_usage");
        assertThat(low).as("usage at high_watermark 0.5").isLessThanOrEqualTo(0.56);
        assertThat(high).as("usage at high_watermark 0.95").isGreaterThan(0.7);
    }

    @Test
    void aLiveCellStopsSendingOnceItsVerdictIsDecided() {
        // 240 small requests; a generous SLO is met by all: decided (pass) at the first look, 50 completions; a
        // 1 microsecond TTFT SLO by none: decided (fail) there too. The requests in flight then finish and count.
        String[] small = {
            "tiers=none",
            "workload.generator={kind: shared-prefix, groups: 24, prompts_per_group: 10, prefix_tokens: 128, "
                    + "suffix_tokens: 64, output_tokens: 2, block_tokens: 64}",
            "workload.arrival.think_ms=0",
            "measurement.early_stop.target=0.9",
            "measurement.early_stop.min_requests=50"
        };
        java.util.List<String> pass = new java.util.ArrayList<>(java.util.List.of(small)),
                fail = new java.util.ArrayList<>(java.util.List.of(small));
        pass.add("slo.ttft_ms=60000");
        fail.add("slo.ttft_ms=0.001");
        CellResult p = new CellRunner().run(config(pass.toArray(String[]::new)));
        CellResult f = new CellRunner().run(config(fail.toArray(String[]::new)));
        assertThat(p.extras().get("early_stop_verdict")).isEqualTo("pass");
        assertThat(f.extras().get("early_stop_verdict")).isEqualTo("fail");
        assertThat(p.extras().get("early_stop_decided_at")).isEqualTo(50L);
        assertThat(p.summary().get(Columns.COMPLETED)).isBetween(50L, 52L); // the two users' requests in flight finish
        // the failing cell's requests waiting past the TTFT SLO count as decided misses before they end: decided at the
        // first look (50 decided requests), with at most the two users' requests in flight finishing after it
        assertThat((Long) f.extras().get("early_stop_decided_at")).isBetween(50L, 52L);
        assertThat(f.summary().get(Columns.COMPLETED)).isLessThanOrEqualTo(52L);
        assertThat(p.summary().get(Columns.SLO_ATTAINMENT)).isEqualTo(1.0);
        assertThat(f.summary().get(Columns.SLO_ATTAINMENT)).isEqualTo(0.0);
        // without it every request runs
        java.util.List<String> full =
                new java.util.ArrayList<>(java.util.List.of(small).subList(0, 3));
        full.add("slo.ttft_ms=60000");
        assertThat(new CellRunner()
                        .run(config(full.toArray(String[]::new)))
                        .summary()
                        .get(Columns.COMPLETED))
                .isEqualTo(240);
    }

    /** Issue 32: a verdict decided by count is not acted on before the measured phase has run the early stop's min_duration. */
    @Test
    void aLiveCellDoesNotStopBeforeItsMinimumDuration() {
        String[] timed = {
            "tiers=none",
            "workload.generator={kind: shared-prefix, groups: 24, prompts_per_group: 10, prefix_tokens: 128, "
                    + "suffix_tokens: 64, output_tokens: 2, block_tokens: 64}",
            "workload.arrival.process=poisson",
            "workload.arrival.rate=100",
            "measurement.early_stop.target=0.9",
            "measurement.early_stop.min_requests=50",
            "measurement.early_stop.min_duration=1.5s",
            "slo.ttft_ms=60000"
        };
        CellResult r = new CellRunner().run(config(timed));
        // at 100 req/s the first look (50 completions) comes after about 0.5 s: held until 1.5 s, about 150 requests
        assertThat(r.extras().get("early_stop_verdict")).isEqualTo("pass");
        assertThat((Long) r.extras().get("early_stop_decided_at")).isGreaterThan(100L);
        assertThat((Double) r.summary().get(Columns.SIMULATED_SECONDS)).isGreaterThanOrEqualTo(1.5);
        assertThat((Long) r.summary().get(Columns.COMPLETED)).isLessThan(240L);
    }

    @Test
    void corruptBytesFallBackToRecomputeAndAreNeverUsed() {
        // a fault injector around the real store: reads of every other key come back with a flipped byte
        RunConfig c = config("tiers=remote-only", "policy=fetch");
        CellResult r = new LiveCell(RunValidator.plan(c, k -> null), Corrupting::new).run(System.nanoTime());
        var s = r.summary();
        assertThat(s.get(Columns.COMPLETED)).isEqualTo(12);
        assertThat(s.get(Columns.REJECTED_BLOCKS)).isPositive();
        assertThat(s.get(Columns.FALLBACKS)).isPositive();
        assertThat((Long) r.extras().get("audit_wrong_hits"))
                .as("the audit saw the corrupt hits the backend returned")
                .isPositive();
        assertThat(s.get(Columns.WRONG_HITS_USED))
                .as("and none of them was used")
                .isZero();
    }

    @Test
    void pdHandoffMovesRealBytes() {
        CellResult r = new CellRunner().run(config("pd=disaggregated", "tiers=none"));
        assertThat(r.summary().get(Columns.COMPLETED)).isEqualTo(12);
        assertThat((Long) r.extras().get("handoff_bytes")).isPositive();
        assertThat(r.extras().has("io_error")).isFalse();
    }

    /** Delegates to the real backend; corrupts the bytes of hits of every other key (the backend still reports a hit). */
    static final class Corrupting implements KvBackend {
        private final KvBackend d;

        Corrupting(KvBackend d) {
            this.d = d;
        }

        @Override
        public String name() {
            return d.name();
        }

        @Override
        public String copySemantics() {
            return d.copySemantics();
        }

        @Override
        public MemorySegment allocateBuffer(long bytes) {
            return d.allocateBuffer(bytes);
        }

        @Override
        public PutStatus put(String key, MemorySegment value, ReplicateConfig config) {
            return d.put(key, value, config);
        }

        @Override
        public GetResult getInto(String key, MemorySegment dst) {
            return corrupt(key, d.getInto(key, dst), dst);
        }

        @Override
        public List<PutStatus> batchPut(List<String> k, List<MemorySegment> v, ReplicateConfig c) {
            return d.batchPut(k, v, c);
        }

        @Override
        public boolean exists(String key) {
            return d.exists(key);
        }

        @Override
        public boolean[] batchExists(List<String> keys) {
            return d.batchExists(keys);
        }

        @Override
        public RemoveStatus remove(String key) {
            return d.remove(key);
        }

        @Override
        public void close() {
            d.close();
        }

        @Override
        public List<GetResult> batchGetInto(List<String> keys, List<MemorySegment> dsts) {
            List<GetResult> rs = d.batchGetInto(keys, dsts);
            for (int i = 0; i < rs.size(); i++) corrupt(keys.get(i), rs.get(i), dsts.get(i));
            return rs;
        }

        private static GetResult corrupt(String key, GetResult g, MemorySegment dst) {
            if (g.isHit() && (key.hashCode() & 1) == 0)
                dst.set(ValueLayout.JAVA_BYTE, 100, (byte) ~dst.get(ValueLayout.JAVA_BYTE, 100));
            return g;
        }
    }
}
