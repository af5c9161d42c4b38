package dev.kvlab.workloads.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.workloads.TraceAnalyzer;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.TraceAnalysis;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class TraceAnalyzerTest {

    static final Namespace NS = Namespace.of("m");

    static Request req(int id, int inputTokens, long... keys) {
        return new Request(id, id, "s", inputTokens, 1, 4, keys, NS);
    }

    @Test
    void handWorkedExample() {
        // block size 4; capacity 2 blocks (f = 0.5 of 4 distinct)
        List<Request> rs = List.of(
                req(0, 10, 1, 2, 3), // miss all; LRU after: [2,3] (1 evicted by 3)
                req(
                        1, 6, 1,
                        2), // ideal: 2 hits; LRU: 1 absent -> 0 hits; after: [1,2]? walk: 1 insert (evict 2? no: cache
                // [2,3]+1 -> evict 2) -> [3,1]; 2 insert -> evict 3 -> [1,2]
                req(2, 8, 1, 2), // ideal 2; LRU 2 hits (tokens min(8, 8) = 8)
                req(3, 3, 4)); // cold
        TraceAnalyzer an = new TraceAnalyzer();
        rs.forEach(an::add);
        TraceAnalysis a = an.finish(List.of(0.5, 0.0));
        assertThat(a.requests()).isEqualTo(4);
        assertThat(a.totalBlocks()).isEqualTo(8);
        assertThat(a.distinctBlocks()).isEqualTo(4);
        assertThat(a.ideal().hitBlocks()).isEqualTo(4);
        assertThat(a.ideal().hitTokens()).isEqualTo(6 + 8); // min(8, 6) + min(8, 8)
        assertThat(a.lru().get(0).capacityBlocks()).isEqualTo(2);
        assertThat(a.lru().get(0).hitBlocks()).isEqualTo(2);
        assertThat(a.lru().get(0).hitTokens()).isEqualTo(8);
        assertThat(an.lruHitBlocks(0)).containsExactly(0, 0, 2, 0);
        assertThat(an.idealHitBlocks()).containsExactly(0, 2, 2, 0);
        assertThat(a.lru().get(1).hitBlocks()).isZero();
        assertThat(a.inputTokens().total()).isEqualTo(27);
        assertThat(a.inputTokens().p50()).isEqualTo(6);
        assertThat(a.inputTokens().max()).isEqualTo(10);
        // stack distances: 1,2,3 cold; 1 -> {2,3} = 2; 2 -> {3,1} = 2; 1 -> {2} = 1; 2 -> {1} = 1; 4 cold
        var rd = a.reuseDistances();
        assertThat(rd.cold()).isEqualTo(4);
        assertThat(rd.buckets())
                .containsExactly(
                        new TraceAnalysis.ReuseDistances.Bucket(1, 1, 2),
                        new TraceAnalysis.ReuseDistances.Bucket(2, 3, 2));
        assertThat(rd.mean()).isEqualTo(1.5);
    }

    @Test
    void hitsCountOnlyTheLongestPresentPrefix() {
        TraceAnalyzer an = new TraceAnalyzer();
        an.add(req(0, 4, 2));
        an.add(req(1, 12, 1, 2, 3)); // 2 is present but 1 is not: no prefix hit
        TraceAnalysis a = an.finish(List.of(1.0));
        assertThat(a.ideal().hitBlocks()).isZero();
        assertThat(a.lru().get(0).hitBlocks()).isZero();
    }

    @Test
    void emptyInputGivesZeros() {
        TraceAnalysis a = new TraceAnalyzer().finish(List.of(0.1));
        assertThat(a.requests()).isZero();
        assertThat(a.ideal().blockHitRatio()).isZero();
        assertThat(a.lru().get(0).tokenHitRatio()).isZero();
    }

    /** The analyzer agrees with a direct transcription of the README semantics on random traces. */
    @Property(tries = 200)
    void agreesWithTheNaiveDefinition(@ForAll("traces") List<long[]> trace, @ForAll("fractions") double f) {
        List<Request> rs = new ArrayList<>();
        for (int i = 0; i < trace.size(); i++) {
            long[] ids = trace.get(i);
            int tokens = ids.length * 4 - (i % 4); // last block partial for some
            rs.add(req(i, Math.max(1, tokens), ids));
        }
        TraceAnalysis a = TraceAnalyzer.analyze(rs.iterator(), List.of(f));
        long[] naive = naive(rs, f);
        assertThat(a.ideal().hitBlocks()).isEqualTo(naive[0]);
        assertThat(a.ideal().hitTokens()).isEqualTo(naive[1]);
        assertThat(a.lru().get(0).capacityBlocks()).isEqualTo(naive[2]);
        assertThat(a.lru().get(0).hitBlocks()).isEqualTo(naive[3]);
        assertThat(a.lru().get(0).hitTokens()).isEqualTo(naive[4]);
    }

    static long[] naive(List<Request> rs, double f) {
        Set<Long> all = new HashSet<>();
        for (Request r : rs) for (long k : r.blockKeys()) all.add(k);
        long cap = (long) Math.floor(f * all.size());
        Set<Long> seen = new HashSet<>();
        LinkedHashMap<Long, Boolean> lru = new LinkedHashMap<>(16, 0.75f, true);
        long ih = 0, it = 0, lh = 0, lt = 0;
        for (Request r : rs) {
            int h = 0;
            while (h < r.blockKeys().length && seen.contains(r.blockKeys()[h])) h++;
            ih += h;
            it += Math.min(4L * h, r.inputTokens());
            int l = 0;
            while (l < r.blockKeys().length && lru.containsKey(r.blockKeys()[l])) l++;
            lh += l;
            lt += Math.min(4L * l, r.inputTokens());
            for (long k : r.blockKeys()) {
                seen.add(k);
                if (lru.get(k) == null) {
                    lru.put(k, true);
                    if (lru.size() > cap) {
                        Iterator<Long> it2 = lru.keySet().iterator();
                        it2.next();
                        it2.remove();
                    }
                }
            }
        }
        return new long[] {ih, it, cap, lh, lt};
    }

    @Provide
    Arbitrary<List<long[]>> traces() {
        // prefix-chained ids from a small tree, so that prefixes are shared
        Arbitrary<long[]> req = Arbitraries.integers()
                .between(1, 8)
                .flatMap(len -> Arbitraries.integers()
                        .between(0, 3)
                        .array(int[].class)
                        .ofSize(len)
                        .map(path -> {
                            long[] ids = new long[len];
                            long id = 0;
                            for (int i = 0; i < len; i++) {
                                id = id * 5 + path[i] + 1;
                                ids[i] = id;
                            }
                            return ids;
                        }));
        return req.list().ofMinSize(0).ofMaxSize(60);
    }

    @Provide
    Arbitrary<Double> fractions() {
        return Arbitraries.of(0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0);
    }
}
