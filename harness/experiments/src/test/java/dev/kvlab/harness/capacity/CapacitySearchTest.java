package dev.kvlab.harness.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.RunListener;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.bundle.BundleVerifier;
import dev.kvlab.harness.bundle.Provenance;
import dev.kvlab.harness.experiments.internal.matrix.CellExecutor;
import dev.kvlab.harness.experiments.internal.matrix.MatrixParser;
import dev.kvlab.harness.experiments.internal.matrix.MatrixRunner;
import dev.kvlab.harness.report.ReportRenderer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Capacity searches end to end on the sim clock: the analytic knee of a one-at-a-time server, probes recorded as
 * ordinary cell runs, resume in the middle of a search retracing the same probes, parallel probes giving the same
 * bundle, flags for undecided and non-monotone probes, and bad capacity blocks refused before anything runs.
 */
class CapacitySearchTest {

    static final ObjectMapper JSON = new ObjectMapper();

    /** One instance, one request at a time, identical requests at a constant rate: the knee is 1 / E2EL. */
    static final String ISO = """
            name: iso
            mode: sim
            seed: 3
            model: llama-3-8b
            hardware: h100
            cluster: {instances: 1, router: round-robin}
            scheduler: {max_running: 1, chunked_prefill: false}
            tiers: none
            policy: recompute
            workload:
              generator: {kind: shared-prefix, groups: 120, prompts_per_group: 1, prefix_tokens: 1024, suffix_tokens: 256, output_tokens: 32, length_spread: 0}
              arrival: {process: constant, rate: 0.05}
            slo: {ttft_ms: SLO}
            """;

    static final String CAP =
            "capacity: {knob: workload.arrival.rate, start: 1, min: 0.01, max: 1000, target_attainment: 0.9, precision: 0.01, max_probes: 30}\n";

    static MatrixSpec spec(Path dir, String yaml) throws Exception {
        Path f = dir.resolve("m.yaml");
        Files.writeString(f, yaml);
        return MatrixParser.load(f, List.of(), null);
    }

    static MatrixRunner runner(CellExecutor exec, RunListener l, int jobs) {
        return new MatrixRunner(
                exec,
                l == null ? List.of() : List.of(l),
                Provenance.capture("test", List.of("run")),
                Clock.systemUTC(),
                new ReportRenderer()::render,
                new PrintWriter(new StringWriter()),
                jobs);
    }

    static JsonNode capacity(Path bundle) throws Exception {
        return JSON.readTree(bundle.resolve("capacity.json").toFile());
    }

    static double isolatedE2elMs(Path dir, double[] ttft) throws Exception {
        MatrixSpec one = spec(dir, ISO.replace("SLO", "100000"));
        CellResult r = new CellRunner().run(one.runs().get(0).config());
        ttft[0] = r.summary().p50Ms(dev.kvlab.harness.api.Metric.TTFT);
        return r.summary().p50Ms(dev.kvlab.harness.api.Metric.E2EL);
    }

    @Test
    void findsTheAnalyticKneeAndEveryProbeIsAnOrdinaryRecordedRun(@TempDir Path t) throws Exception {
        double[] ttft = new double[1];
        double e2el = isolatedE2elMs(t, ttft);
        MatrixSpec s = spec(t, ISO.replace("SLO", String.valueOf(ttft[0] + e2el)) + CAP);
        MatrixRunner.Outcome o = runner(new CellRunner()::run, null, 1).run(s, t.resolve("runs"), false);
        JsonNode c = capacity(o.bundle()).get("cells").get(0);
        double cap = c.get("capacity").asDouble();
        assertThat(cap * e2el / 1000).isBetween(0.96, 1.04);
        assertThat(c.get("first_failing").asDouble()).isGreaterThan(cap);
        assertThat(c.get("status").asText()).isEqualTo("converged");
        assertThat(c.get("probes").size())
                .isEqualTo(c.get("probes_used").asInt())
                .isGreaterThanOrEqualTo(5);
        // every probe is a row of summary.csv and a cell of the manifest, and verifies
        assertThat(o.table().rows()).hasSize(c.get("runs_used").asInt()); // extended probes are runs of their own
        for (JsonNode p : c.get("probes")) {
            String run = p.get("run").asText();
            assertThat(o.bundle().resolve("cells/" + run + "/run.hlog"))
                    .exists(); // a probe keeps one file (docs/bundle-format.md)
            double w0 = p.get("wilson").get(0).asDouble(),
                    w1 = p.get("wilson").get(1).asDouble();
            assertThat(p.get("attainment").asDouble()).isBetween(w0, w1);
        }
        assertThat(BundleVerifier.verify(o.bundle())).isEmpty();
        // bundle.requests: capacity (the default): the run at capacity and the first failing probe keep their requests
        JsonNode man = JSON.readTree(o.bundle().resolve("manifest.json").toFile());
        assertThat(man.path("bundle").path("requests").asText()).isEqualTo("capacity");
        assertThat(man.path("bundle").path("requests_default").asBoolean()).isTrue();
        int kept = 0;
        for (JsonNode p : c.get("probes")) {
            boolean keep = p.get("run").asText().equals(c.get("capacity_run").asText())
                    || p.get("load").asDouble() == c.get("first_failing").asDouble();
            assertThat(Files.exists(o.bundle().resolve("cells/" + p.get("run").asText() + "/requests.csv.gz")))
                    .as(p.get("run").asText())
                    .isEqualTo(keep);
            if (keep) kept++;
        }
        assertThat(kept)
                .isEqualTo(2)
                .isEqualTo(man.path("bundle").path("probes_with_requests").asInt());
        // a projection above the free space is refused before anything runs, naming it
        assertThatThrownBy(() -> dev.kvlab.harness.experiments.internal.matrix.BundleProjection.check(
                        s,
                        dev.kvlab.harness.experiments.internal.matrix.MatrixExperiment.of(s),
                        t.resolve("runs2"),
                        100_000L))
                .isInstanceOf(dev.kvlab.harness.api.input.BadInputException.class)
                .hasMessageContaining("projected to take at most")
                .hasMessageContaining("free under");
        // the figure is reproducible: the plain cell (no capacity block) at the capacity attains the same
        CellResult again = new CellRunner()
                .run(plainRun(
                        t,
                        ISO.replace("SLO", String.valueOf(ttft[0] + e2el)),
                        c.get("capacity").asText()));
        assertThat(again.summary().get(Columns.SLO_ATTAINMENT))
                .isEqualTo(c.get("slo_attainment").asDouble());
    }

    static dev.kvlab.harness.api.config.RunConfig plainRun(Path t, String yaml, String load) throws Exception {
        Path f = t.resolve("plain.yaml");
        Files.writeString(f, yaml);
        return MatrixParser.load(f, List.of("workload.arrival.rate=" + load), null)
                .runs()
                .get(0)
                .config();
    }

    static final String TWO_CELLS = """
            name: two
            mode: sim
            model: llama-3-8b
            hardware: h100
            cluster: {instances: 1}
            workload:
              generator: {kind: shared-prefix, groups: 10, prompts_per_group: 6, prefix_tokens: 1024, suffix_tokens: 128, output_tokens: 16}
              arrival: {process: poisson, rate: 4}
            slo: {ttft_ms: 150}
            factors:
              tiers: [none, local-only]
            replicates: 2
            baseline: {tiers: none}
            capacity: {knob: workload.arrival.rate, start: 4, min: 0.1, max: 4000, target_attainment: 0.9, precision: 0.05, max_probes: 16}
            """;

    @Test
    void resumeInTheMiddleOfASearchRetracesTheSameProbes(@TempDir Path t) throws Exception {
        MatrixSpec s = spec(t, TWO_CELLS);
        List<String> fresh = Collections.synchronizedList(new ArrayList<>());
        MatrixRunner.Outcome full =
                runner(new CellRunner()::run, started(fresh), 1).run(s, t.resolve("a"), false);
        // the same search, killed after 7 probes, then resumed
        CellRunner real = new CellRunner();
        int[] n = {0};
        CellExecutor flaky = (c, w, obs) -> {
            if (++n[0] == 8) throw new IllegalStateException("injected failure");
            return real.run(c, w, obs);
        };
        List<String> first = Collections.synchronizedList(new ArrayList<>());
        assertThatThrownBy(() -> runner(flaky, started(first), 1).run(s, t.resolve("b"), false))
                .hasMessageContaining("injected");
        List<String> second = Collections.synchronizedList(new ArrayList<>());
        MatrixRunner.Outcome resumed =
                runner(new CellRunner()::run, started(second), 1).run(s, t.resolve("b"), true);
        List<String> both = new ArrayList<>(first.subList(0, 7));
        both.addAll(second);
        // every search probes the same loads in the same order (the searches' interleaving may differ)
        assertThat(bySearch(both)).isEqualTo(bySearch(fresh));
        assertThat(second).doesNotContainAnyElementsOf(first.subList(0, 7));
        assertThat(withoutRunId(capacity(resumed.bundle()))).isEqualTo(withoutRunId(capacity(full.bundle())));
        assertThat(BundleVerifier.verify(resumed.bundle())).isEmpty();
        // and the searches found something to compare: a local tier sustains at least the load of none
        JsonNode sum = capacity(full.bundle()).get("summary");
        assertThat(sum.get(1).get("vs_baseline").get("ratio").get("mean").asDouble())
                .isGreaterThanOrEqualTo(1.0);
    }

    @Test
    void parallelProbesGiveTheSameBundle(@TempDir Path t) throws Exception {
        MatrixSpec s = spec(t, TWO_CELLS);
        MatrixRunner.Outcome one = runner(new CellRunner()::run, null, 1).run(s, t.resolve("a"), false);
        MatrixRunner.Outcome four = runner(new CellRunner()::run, null, 4).run(s, t.resolve("b"), false);
        assertThat(withoutRunId(capacity(four.bundle()))).isEqualTo(withoutRunId(capacity(one.bundle())));
        assertThat(rows(four)).isEqualTo(rows(one));
    }

    /**
     * Attainment scripted as a function of the load (a real sim run, its attainment replaced), to reach the cases a
     * real cell rarely shows: a probe whose interval straddles the target, attainment that rises with load.
     */
    static CellExecutor scripted(DoubleUnaryOperator attainment) {
        CellRunner real = new CellRunner();
        return (c, w, o) -> {
            CellResult r = real.run(c, w, o);
            CellSummary s = r.summary();
            double a = attainment.applyAsDouble(c.workload().arrival().rate());
            CellSummary x = s.with(
                    Columns.SLO_ATTAINMENT, Math.round(a * s.get(Columns.REQUESTS)) / (double) s.get(Columns.REQUESTS));
            return r.withSummary(x);
        };
    }

    @Test
    void flagsUndecidedAndNonMonotoneProbesShowingBoth(@TempDir Path t) throws Exception {
        // max_passes 1: probes that cannot be made longer (as live probes and trace replays) keep the undecided flag
        MatrixSpec s =
                spec(t, ISO.replace("SLO", "1000") + CAP.replace("precision: 0.01", "precision: 0.05, max_passes: 1"));
        // 120 requests: 0.91 at load 1 (its interval straddles 0.9), 1.0 at 2 (higher, intervals disjoint), 0.2 above
        MatrixRunner.Outcome o = runner(scripted(x -> x <= 1 ? 0.91 : x <= 2 ? 1.0 : 0.2), null, 1)
                .run(s, t.resolve("runs"), false);
        JsonNode c = capacity(o.bundle()).get("cells").get(0);
        assertThat(flags(c)).contains("undecided", "non_monotone");
        assertThat(c.get("probes").get(0).get("undecided").asBoolean()).isTrue();
        assertThat(c.get("non_monotone").get(0).get("lower").asDouble()).isEqualTo(1.0);
        assertThat(c.get("non_monotone").get(0).get("higher").asDouble()).isEqualTo(2.0);
        assertThat(c.get("capacity").asDouble()).isEqualTo(2.0);
    }

    @Test
    void aSimProbeStillUndecidedOnItsLongestWorkloadIsTheKnee(@TempDir Path t) throws Exception {
        MatrixSpec s =
                spec(t, ISO.replace("SLO", "1000") + CAP.replace("precision: 0.01", "precision: 0.05, max_passes: 4"));
        // 0.91 at load <= 1 whatever the length: 120, 240, 480 requests all straddle 0.9
        MatrixRunner.Outcome o =
                runner(scripted(x -> x <= 1 ? 0.91 : 0.2), null, 1).run(s, t.resolve("runs"), false);
        JsonNode c = capacity(o.bundle()).get("cells").get(0);
        JsonNode first = c.get("probes").get(0);
        assertThat(first.get("verdict").asText()).isEqualTo("undecided");
        assertThat(first.get("passes").asInt()).isEqualTo(4);
        assertThat(first.get("extended_from").toString()).isEqualTo("[1,2]");
        assertThat(first.get("run").asText()).endsWith("@1x4/r0");
        assertThat(c.get("status").asText()).isEqualTo("converged");
        assertThat(c.get("capacity").asDouble()).isEqualTo(1.0);
        assertThat(c.get("knee_probe").asText()).isEqualTo(first.get("run").asText());
        assertThat(flags(c)).doesNotContain("undecided");
        assertThat(c.get("runs_used").asInt()).isEqualTo(3);
        assertThat(o.table().rows()).hasSize(3);
    }

    @Test
    void givesUpAtTheBoundsSayingSo(@TempDir Path t) throws Exception {
        MatrixRunner.Outcome up = runner(scripted(x -> 0.99), null, 1)
                .run(
                        spec(
                                t,
                                ISO.replace("SLO", "1000")
                                        + CAP.replace("start: 1", "start: 2").replace("max: 1000", "max: 4")),
                        t.resolve("up"),
                        false);
        JsonNode c = capacity(up.bundle()).get("cells").get(0);
        assertThat(flags(c)).contains("above_max");
        assertThat(c.get("capacity").asDouble()).isEqualTo(4.0);
        assertThat(c.get("first_failing").isNull()).isTrue();
        assertThat(c.get("status_text").asText()).contains("never saturates");
        MatrixRunner.Outcome down = runner(scripted(x -> 0.1), null, 1)
                .run(
                        spec(t, ISO.replace("SLO", "1000") + CAP.replace("min: 0.01", "min: 0.25")),
                        t.resolve("down"),
                        false);
        JsonNode d = capacity(down.bundle()).get("cells").get(0);
        assertThat(flags(d)).contains("below_min");
        assertThat(d.get("capacity").isNull()).isTrue();
        assertThat(d.get("probes")).hasSize(3); // 1, 0.5, 0.25
    }

    static List<String> flags(JsonNode c) {
        List<String> out = new ArrayList<>();
        c.get("flags").forEach(f -> out.add(f.asText()));
        return out;
    }

    @Test
    void liveProbesStopEarlyOnceDecidedSimProbesNever(@TempDir Path t) throws Exception {
        String live = """
                name: live-cap
                mode: live
                model: qwen2.5-0.5b
                hardware: h100
                transport: tcp
                cluster: {instances: 1}
                store: {nodes: 1, capacity: 64MiB}
                tiers: none
                workload:
                  generator: {kind: shared-prefix, groups: 40, prompts_per_group: 1, prefix_tokens: 128, suffix_tokens: 64, output_tokens: 2, block_tokens: 64}
                  arrival: {process: poisson, rate: 20}
                slo: {ttft_ms: 1000}
                capacity: {knob: workload.arrival.rate, start: 20, min: 1, max: 100, min_requests: 10}
                """;
        MatrixSpec spec = spec(t, live);
        dev.kvlab.harness.experiments.internal.capacity.CapacitySearch search =
                new dev.kvlab.harness.experiments.internal.capacity.CapacitySearch(spec);
        CellRun probe = search.probe(spec.runs().get(0), 20);
        assertThat(probe.config().measurement().earlyStop().target()).isEqualTo(0.9);
        assertThat(probe.config().measurement().earlyStop().minRequests()).isEqualTo(50); // max(min_requests, 50)
        assertThat(probe.config().measurement().earlyStop().minDurationNanos()).isZero(); // min_duration unset: 0s
        MatrixSpec timed = spec(t, live.replace("min_requests: 10}", "min_requests: 10, min_duration: 2.5s}"));
        CellRun pt = new dev.kvlab.harness.experiments.internal.capacity.CapacitySearch(timed)
                .probe(timed.runs().get(0), 20);
        // issue 32: no look before the probe's min_duration (stopped short of it, the probe would be invalid)
        assertThat(pt.config().measurement().earlyStop().minDurationNanos()).isEqualTo(2_500_000_000L);
        MatrixSpec off = spec(t, live.replace("min_requests: 10}", "min_requests: 10, early_stop: false}"));
        CellRun p2 = new dev.kvlab.harness.experiments.internal.capacity.CapacitySearch(off)
                .probe(off.runs().get(0), 20);
        assertThat(p2.config().measurement().earlyStop().enabled()).isFalse();
        MatrixSpec sim = spec(t, ISO.replace("SLO", "1000") + CAP);
        CellRun p3 = new dev.kvlab.harness.experiments.internal.capacity.CapacitySearch(sim)
                .probe(sim.runs().get(0), 2);
        assertThat(p3.config().measurement().earlyStop().enabled()).isFalse();
    }

    @Test
    void badCapacityBlocksAreRefusedNamingTheKey(@TempDir Path t) throws Exception {
        String base = ISO.replace("SLO", "1000");
        assertThatThrownBy(() -> spec(t, base + "capacity: {knob: cluster.instances, start: 1}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.knob")
                .hasMessageContaining("m.yaml:");
        assertThatThrownBy(() -> spec(t, base + "capacity: {knob: workload.arrival.speedup, start: 1}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.knob")
                .hasMessageContaining("constant");
        assertThatThrownBy(() -> spec(t, base + "capacity: {knob: workload.arrival.rate, start: 5, min: 1, max: 4}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.start");
        assertThatThrownBy(() ->
                        spec(t, base + "capacity: {knob: workload.arrival.rate, start: 1, target_attainment: 1.2}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.target_attainment");
        assertThatThrownBy(() ->
                        spec(t, base + "capacity: {knob: workload.arrival.rate, start: 1, target_attainment: 0}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.target_attainment");
        assertThatThrownBy(() -> spec(
                        t,
                        base.replace("slo: {ttft_ms: 1000}", "")
                                + "capacity: {knob: workload.arrival.rate, start: 1}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("SLO");
        assertThatThrownBy(
                        () -> spec(
                                t,
                                base
                                        + "factors: {workload.arrival.rate: [1, 2]}\ncapacity: {knob: workload.arrival.rate, start: 1}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.knob")
                .hasMessageContaining("factor");
        assertThatThrownBy(() -> spec(t, base + "capacity: {knob: workload.arrival.rate, start: 1, stepsize: 2}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.stepsize");
    }

    /**
     * {@code capacity.cells} names levels as the file declares them: a {@code --set} pin that leaves none of them runs
     * the fixed part alone (the demo's {@code --set clock=live}); a level the file does not declare is still refused.
     */
    @Test
    void aSelectionEmptiedByAPinLeavesAFixedMatrix(@TempDir Path t) throws Exception {
        String m = ISO.replace("SLO", "1000") + "factors: {tiers: [none, local-only]}\n"
                + "capacity: {knob: workload.arrival.rate, start: 1, cells: {tiers: none}}\n";
        Path f = t.resolve("m.yaml");
        Files.writeString(f, m);
        assertThat(MatrixParser.load(f, List.of(), null).capacity()).isNotNull();
        MatrixSpec pinned = MatrixParser.load(f, List.of("tiers=local-only"), null);
        assertThat(pinned.capacity()).isNull();
        assertThat(pinned.runs()).hasSize(1);
        assertThat(MatrixParser.load(f, List.of("tiers=none"), null).capacity()).isNotNull();
        Files.writeString(f, m.replace("cells: {tiers: none}", "cells: {tiers: remote-only}"));
        assertThatThrownBy(() -> MatrixParser.load(f, List.of("tiers=local-only"), null))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.cells")
                .hasMessageContaining("'remote-only' is not a level");
    }

    /** Probe labels grouped by search ({@code <cell>/r<k>}), in the order each search ran them. */
    static java.util.Map<String, List<String>> bySearch(List<String> labels) {
        java.util.Map<String, List<String>> m = new java.util.TreeMap<>();
        for (String l : labels)
            m.computeIfAbsent(l.replaceFirst("@[^/]*", ""), k -> new ArrayList<>())
                    .add(l);
        return m;
    }

    static RunListener started(List<String> into) {
        return new RunListener() {
            @Override
            public void cellStarted(String id, CellRun c) {
                into.add(c.label());
            }
        };
    }

    static JsonNode withoutRunId(JsonNode n) {
        ObjectNode o = n.deepCopy();
        o.remove("run_id");
        for (JsonNode c : o.get("cells")) for (JsonNode p : c.get("probes")) ((ObjectNode) p).remove("wall_seconds");
        return o;
    }

    static List<String> rows(MatrixRunner.Outcome o) {
        List<String> out = new ArrayList<>();
        for (var r : o.table().rows()) {
            var m = new java.util.LinkedHashMap<String, Object>();
            r.forEach(m::put);
            m.remove("wall_seconds");
            out.add(m.toString());
        }
        return out;
    }
}
