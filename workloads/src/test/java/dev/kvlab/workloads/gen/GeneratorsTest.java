package dev.kvlab.workloads.gen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.workloads.MooncakeTrace;
import dev.kvlab.workloads.TraceAnalyzer;
import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.TraceAnalysis;
import dev.kvlab.workloads.api.TraceFormat;
import dev.kvlab.workloads.api.WorkloadFormatException;
import dev.kvlab.workloads.api.WorkloadSpec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Determinism of every generator, and that each one's reuse structure is what it claims, measured by the analyzer. */
class GeneratorsTest {

    static final Namespace NS = Namespace.of("llama-3-8b");

    static Stream<WorkloadSpec> specs() {
        return Stream.of(
                new WorkloadSpec.Chat(6, 4, 2, 700, 300, 120, 200, 64),
                new WorkloadSpec.SharedPrefix(5, 6, 1000, 100, 50, "random", 128),
                new WorkloadSpec.DocQa(8, 2048, 3, 60, 20, "random", 256),
                new WorkloadSpec.Zipf(50, 1024, 1.1, 200, 40, 30, 256),
                new WorkloadSpec.Chat(6, 4, 2, 700, 300, 120, 200, 64, 0.5),
                new WorkloadSpec.SharedPrefix(5, 6, 1000, 100, 50, "random", 128, 0.3),
                new WorkloadSpec.DocQa(8, 2048, 3, 60, 20, "random", 256, 0.9),
                new WorkloadSpec.Zipf(50, 1024, 1.1, 200, 40, 30, 256, 0.2));
    }

    @Test
    void lengthSpreadVariesLengthsWithinItsBoundsAndKeepsPrefixes() {
        List<Request> rs =
                all(Workloads.open(new WorkloadSpec.SharedPrefix(4, 50, 1024, 200, 100, "random", 128, 0.5), NS, 3));
        assertThat(rs).allSatisfy(r -> {
            assertThat(r.inputTokens() - 1024).isBetween(100, 300);
            assertThat(r.outputTokens()).isBetween(50, 150);
        });
        assertThat(rs.stream().map(Request::inputTokens).distinct().count())
                .as("suffix lengths vary")
                .isGreaterThan(50);
        assertThat(rs.stream().map(Request::outputTokens).distinct().count())
                .as("output lengths vary")
                .isGreaterThan(30);
        List<Request> fixed =
                all(Workloads.open(new WorkloadSpec.SharedPrefix(4, 50, 1024, 200, 100, "random", 128), NS, 3));
        assertThat(fixed).allSatisfy(r -> assertThat(r.inputTokens()).isEqualTo(1224));
        // the shared prefix is untouched: a group's prompts still share its 8 full prefix blocks
        assertThat(rs.stream().map(r -> r.blockKeys()[7]).distinct().count()).isEqualTo(4);
    }

    @Test
    void chatWithSpreadCarriesEachGeneratedAnswerIntoTheNextRound() {
        int users = 5, rounds = 4, q = 100, ans = 200, block = 64;
        List<Request> rs =
                all(Workloads.open(new WorkloadSpec.Chat(users, rounds, 1, 512, 256, q, ans, block, 0.5), NS, 21));
        TraceAnalyzer an = new TraceAnalyzer();
        rs.forEach(an::add);
        an.finish(List.of());
        int[] hits = an.idealHitBlocks();
        java.util.Map<String, Integer> last = new java.util.HashMap<>();
        for (int i = 0; i < rs.size(); i++) {
            Request r = rs.get(i);
            assertThat(r.outputTokens()).isBetween(100, 300);
            Integer prev = last.put(r.session(), i);
            if (prev == null) continue;
            Request p = rs.get(prev);
            int question = r.inputTokens() - p.inputTokens() - p.outputTokens();
            assertThat(question).as("the new question of %s", r.session()).isBetween(50, 150);
            assertThat(hits[i])
                    .as("the previous round's full blocks are reused")
                    .isEqualTo(p.inputTokens() / block);
        }
    }

    @Test
    void lengthSpreadMustBeBelowOne() {
        assertThatThrownBy(() -> new WorkloadSpec.Zipf(5, 64, 1, 10, 8, 8, 16, 1.0).validate("workload"))
                .isInstanceOf(WorkloadFormatException.class)
                .hasMessage("workload.length_spread: must be >= 0 and < 1, got 1.0");
    }

    static byte[] serialise(WorkloadSpec spec, long seed) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (RequestSource s = Workloads.open(spec, ArrivalSpec.poisson(20), NS, seed)) {
            MooncakeTrace.write(s, out);
        }
        return out.toByteArray();
    }

    static List<Request> all(RequestSource s) {
        List<Request> out = new ArrayList<>();
        try (s) {
            s.forEachRemaining(out::add);
        }
        return out;
    }

    @ParameterizedTest
    @MethodSource("specs")
    void sameSeedIsByteIdenticalAndDifferentSeedsDiffer(WorkloadSpec spec) throws IOException {
        byte[] a = serialise(spec, 42);
        byte[] b = serialise(spec, 42);
        byte[] c = serialise(spec, 43);
        assertThat(a).isNotEmpty();
        assertThat(b).isEqualTo(a);
        assertThat(c).isNotEqualTo(a);
    }

    @ParameterizedTest
    @MethodSource("specs")
    void serialisationRoundTripsThroughTheReader(WorkloadSpec spec) throws IOException {
        byte[] bytes = serialise(spec, 7);
        List<Request> original = all(Workloads.open(spec, ArrivalSpec.poisson(20), NS, 7));
        List<Request> back = all(MooncakeTrace.read(
                new ByteArrayInputStream(bytes),
                "gen.jsonl",
                TraceFormat.defaults(),
                Namespace.of("ignored: lines carry their namespace")));
        assertThat(back).containsExactlyElementsOf(original);
        // and the analysis of the file equals the analysis of the generator
        TraceAnalysis fromFile = TraceAnalyzer.analyze(back.iterator(), List.of(0.1));
        TraceAnalysis fromGen = TraceAnalyzer.analyze(original.iterator(), List.of(0.1));
        assertThat(fromFile).isEqualTo(fromGen);
    }

    @ParameterizedTest
    @MethodSource("specs")
    void requestsAreWellFormed(WorkloadSpec spec) {
        List<Request> rs = all(Workloads.open(spec, NS, 1));
        for (int i = 0; i < rs.size(); i++) {
            Request r = rs.get(i);
            assertThat(r.id()).isEqualTo(i);
            assertThat(r.blockTokens()).isEqualTo(spec.blockTokens());
            assertThat(r.namespace()).isEqualTo(NS);
        }
    }

    @ParameterizedTest
    @MethodSource("specs")
    void anotherNamespaceSharesNoKey(WorkloadSpec spec) {
        Set<Long> a = keys(all(Workloads.open(spec, NS, 5)));
        Set<Long> b =
                keys(all(Workloads.open(spec, new Namespace("llama-3-8b", "bf16", "tp1", "none", "tenant-b"), 5)));
        Set<Long> c = keys(all(Workloads.open(spec, new Namespace("llama-3-8b", "fp8", "tp1", "none", "default"), 5)));
        assertThat(a).isNotEmpty().doesNotContainAnyElementsOf(b).doesNotContainAnyElementsOf(c);
    }

    static Set<Long> keys(List<Request> rs) {
        Set<Long> s = new HashSet<>();
        for (Request r : rs) for (long k : r.blockKeys()) s.add(k);
        return s;
    }

    @Test
    void docQaTileOrderHitsLessThanInterleaveBelowTheWorkingSet() {
        // 20 documents of 8 blocks, each asked 4 times; a fresh 100-token question per request (one partial block)
        int docs = 20, blocks = 8, repeats = 4;
        double f = 0.25; // distinct = 20*8 + 80 = 240 -> capacity 60 blocks, less than the 20 x 9 blocks of one tile
        TraceAnalysis tile = docQa(docs, blocks, repeats, "tile", f);
        TraceAnalysis interleave = docQa(docs, blocks, repeats, "interleave", f);
        TraceAnalysis random = docQa(docs, blocks, repeats, "random", f);
        long idealHits = (long) docs * (repeats - 1) * blocks;
        for (TraceAnalysis a : List.of(tile, interleave, random)) {
            assertThat(a.distinctBlocks()).isEqualTo((long) docs * blocks + (long) docs * repeats);
            assertThat(a.ideal().hitBlocks()).isEqualTo(idealHits); // same documents, same ideal reuse
        }
        assertThat(tile.lru().get(0).capacityBlocks()).isEqualTo(60);
        assertThat(tile.lru().get(0).hitBlocks()).isZero(); // reuse distance of 19 documents > capacity
        assertThat(interleave.lru().get(0).hitBlocks()).isEqualTo(idealHits); // reuse distance 0
        assertThat(random.lru().get(0).hitBlocks()).isBetween(1L, idealHits - 1);
        assertThat(tile.reuseDistances().mean())
                .isGreaterThan(random.reuseDistances().mean());
        assertThat(random.reuseDistances().mean())
                .isGreaterThan(interleave.reuseDistances().mean());
    }

    static TraceAnalysis docQa(int docs, int blocks, int repeats, String order, double f) {
        var spec = new WorkloadSpec.DocQa(docs, blocks * 512, repeats, 100, 10, order, 512);
        return TraceAnalyzer.analyze(Workloads.open(spec, NS, 3), List.of(f));
    }

    @Test
    void sharedPrefixGroupsHitExactlyTheirFullPrefixBlocks() {
        int groups = 7,
                perGroup = 5,
                prefix = 1300,
                block = 256; // 5 full prefix blocks, the 6th is mixed with the suffix
        for (String order : WorkloadSpec.SharedPrefix.ORDERS) {
            var spec = new WorkloadSpec.SharedPrefix(groups, perGroup, prefix, 200, 10, order, block);
            TraceAnalyzer an = new TraceAnalyzer();
            List<Request> rs = all(Workloads.open(spec, NS, 9));
            rs.forEach(an::add);
            TraceAnalysis a = an.finish(List.of(0.0));
            assertThat(a.ideal().hitBlocks()).as(order).isEqualTo((long) groups * (perGroup - 1) * (prefix / block));
            int[] hits = an.idealHitBlocks();
            Set<String> seenGroups = new HashSet<>();
            for (int i = 0; i < rs.size(); i++) {
                boolean first = seenGroups.add(rs.get(i).session());
                assertThat(hits[i]).as(order + " request " + i).isEqualTo(first ? 0 : prefix / block);
            }
        }
        // a cache of 10 blocks (more than one 6-block prompt, less than all 7 groups' prefixes): grouped order reuses
        // everything, interleaved order (reuse distance 6 prompts) nothing
        var grouped = TraceAnalyzer.analyze(
                Workloads.open(
                        new WorkloadSpec.SharedPrefix(groups, perGroup, prefix, 200, 10, "grouped", block), NS, 9),
                List.of(0.15));
        var interleaved = TraceAnalyzer.analyze(
                Workloads.open(
                        new WorkloadSpec.SharedPrefix(groups, perGroup, prefix, 200, 10, "interleaved", block), NS, 9),
                List.of(0.15));
        assertThat(grouped.lru().get(0).capacityBlocks()).isEqualTo(10);
        assertThat(grouped.lru().get(0).hitBlocks()).isEqualTo(grouped.ideal().hitBlocks());
        assertThat(interleaved.lru().get(0).hitBlocks()).isZero();
    }

    @Test
    void chatHistoryReuseGrowsEveryRound() {
        int users = 8, rounds = 6, sys = 1000, ctx = 500, q = 150, ans = 250, block = 128;
        var spec = new WorkloadSpec.Chat(users, rounds, 2, sys, ctx, q, ans, block);
        List<Request> rs = all(Workloads.open(spec, NS, 11));
        TraceAnalyzer an = new TraceAnalyzer();
        rs.forEach(an::add);
        an.finish(List.of());
        int[] hits = an.idealHitBlocks();
        double previous = -1;
        for (int r = 0; r < rounds; r++) {
            long roundHits = 0, roundBlocks = 0;
            for (int i = r * users; i < (r + 1) * users; i++) {
                Request req = rs.get(i);
                assertThat(req.inputTokens()).isEqualTo(sys + ctx + r * (q + ans) + q);
                if (r > 0) {
                    // everything the previous round sent in full blocks is reused
                    assertThat(hits[i]).isEqualTo((sys + ctx + (r - 1) * (q + ans) + q) / block);
                } else {
                    // round 0: only the shared system prompt, and only after another user with the same prompt
                    assertThat(hits[i]).isIn(0, sys / block);
                }
                roundHits += hits[i];
                roundBlocks += req.blockKeys().length;
            }
            double ratio = (double) roundHits / roundBlocks;
            assertThat(ratio).as("round " + r).isGreaterThan(previous);
            previous = ratio;
        }
        // shared system prompts: 2 prompts over 8 users, so 6 users of round 0 hit the system prompt
        long round0 = 0;
        for (int i = 0; i < users; i++) round0 += hits[i];
        assertThat(round0).isEqualTo(6L * (sys / block));
    }

    @Test
    void zipfSkewRaisesTheHitRatio() {
        double uniform = zipf(0.0).lru().get(0).blockHitRatio();
        double mild = zipf(0.8).lru().get(0).blockHitRatio();
        double skewed = zipf(1.4).lru().get(0).blockHitRatio();
        assertThat(mild).isGreaterThan(uniform);
        assertThat(skewed).isGreaterThan(mild);
        assertThat(zipf(1.4).ideal().blockHitRatio())
                .isGreaterThan(zipf(0.0).ideal().blockHitRatio());
    }

    static TraceAnalysis zipf(double s) {
        var spec = new WorkloadSpec.Zipf(2000, 2048, s, 3000, 100, 10, 512);
        return TraceAnalyzer.analyze(Workloads.open(spec, NS, 13), List.of(0.05));
    }

    @Test
    void zipfRanksFollowThePowerLaw() {
        var spec = new WorkloadSpec.Zipf(10, 512, 1.0, 100_000, 10, 1, 512);
        int[] counts = new int[11];
        try (RequestSource s = Workloads.open(spec, NS, 17)) {
            s.forEachRemaining(r -> counts[Integer.parseInt(r.session().substring("prefix-".length()))]++);
        }
        double h = 0;
        for (int k = 1; k <= 10; k++) h += 1.0 / k;
        for (int k = 1; k <= 10; k++) {
            double expected = 100_000 / (k * h);
            assertThat((double) counts[k]).as("rank " + k).isBetween(expected * 0.93, expected * 1.07);
        }
    }
}
