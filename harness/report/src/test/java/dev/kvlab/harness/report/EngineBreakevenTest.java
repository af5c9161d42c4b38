package dev.kvlab.harness.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.MissingNode;
import dev.kvlab.harness.api.Columns;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The real engine's measured break-even from a prefix-length sweep: the shortest swept length from which fetch's TTFT
 * p50 wins at every longer one, set against the predicted length.
 */
class EngineBreakevenTest {

    private static CellData cell(String policy, long prefix, double ttft, double predicted) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("workload.generator.prefix_tokens", Long.toString(prefix));
        f.put("policy", policy);
        Map<String, Stat> m = new LinkedHashMap<>();
        m.put("ttft_p50_ms", stat(ttft));
        m.put(Columns.SHARED_PREFIX_TOKENS.name(), stat(prefix));
        m.put(Columns.BREAKEVEN_PREDICTED_TOKENS.name(), stat(predicted));
        m.put(Columns.PREDICTED_RECOMPUTE_MS.name(), stat(prefix * 0.3));
        m.put(Columns.PREDICTED_FETCH_MS.name(), stat(0.2 + prefix * 0.002));
        return new CellData(
                prefix + "_" + policy,
                f,
                "live",
                1,
                m,
                Map.of(),
                List.of(),
                List.of(),
                MissingNode.getInstance(),
                Map.of());
    }

    private static Stat stat(double v) {
        return new Stat(v, Double.NaN, 1, Double.NaN, Double.NaN);
    }

    /** A sweep with TTFT p50 {@code ttft[i] = {recompute, fetch}} at {@code prefixes[i]}. */
    private static List<CellData> sweep(long[] prefixes, double[][] ttft, double predicted) {
        List<CellData> cells = new ArrayList<>();
        for (int i = 0; i < prefixes.length; i++) {
            cells.add(cell("recompute", prefixes[i], ttft[i][0], predicted));
            cells.add(cell("fetch", prefixes[i], ttft[i][1], predicted));
        }
        return cells;
    }

    @Test
    void theMeasuredBreakevenIsWhereFetchStartsToWinForGood() {
        long[] p = {32, 128, 512, 1024};
        List<EngineBreakeven> s =
                EngineBreakeven.of(sweep(p, new double[][] {{14, 16}, {22, 34}, {245, 172}, {1192, 261}}, 1));
        assertThat(s).hasSize(1);
        EngineBreakeven b = s.getFirst();
        assertThat(b.points()).extracting(EngineBreakeven.Point::prefixTokens).containsExactly(32L, 128L, 512L, 1024L);
        assertThat(b.measured()).isEqualTo(512);
        assertThat(b.below()).isEqualTo(128);
        assertThat(b.points().get(2).measuredSaving()).isEqualTo(73.0);
        assertThat(b.agrees()).as("predicted 1 token, measured in (128, 512]").isFalse();
        assertThat(EngineBreakeven.of(sweep(p, new double[][] {{14, 16}, {22, 34}, {245, 172}, {1192, 261}}, 300))
                        .getFirst()
                        .agrees())
                .isTrue();
    }

    @Test
    void thePredictionAtTheSweptLengthsFollowsTheSameRule() {
        long[] p = {32, 128, 512, 1024};
        // predicted recompute prefix × 0.3 ms, fetch 0.2 + prefix × 0.002 ms: fetch predicted to win from the shortest
        EngineBreakeven b = EngineBreakeven.of(sweep(
                        p, new double[][] {{14, 16}, {22, 34}, {245, 172}, {1192, 261}}, 300))
                .getFirst();
        assertThat(b.predictedOnSweep()).isEqualTo(32);
        assertThat(b.agreesOnSweep()).isFalse();
        List<CellData> cells = new ArrayList<>();
        for (CellData c : sweep(p, new double[][] {{14, 16}, {22, 34}, {245, 172}, {1192, 261}}, 300)) {
            long prefix = Long.parseLong(c.factors().get("workload.generator.prefix_tokens"));
            Map<String, Stat> m = new LinkedHashMap<>(c.metrics());
            m.put(Columns.PREDICTED_RECOMPUTE_MS.name(), stat(prefix < 512 ? 1 : 100));
            m.put(Columns.PREDICTED_FETCH_MS.name(), stat(prefix < 512 ? 2 : 50));
            cells.add(new CellData(
                    c.id(),
                    c.factors(),
                    c.mode(),
                    c.replicates(),
                    m,
                    c.vsBaseline(),
                    c.rows(),
                    c.replicateDirs(),
                    c.config(),
                    c.describe()));
        }
        EngineBreakeven q = EngineBreakeven.of(cells).getFirst();
        assertThat(q.predictedOnSweep()).isEqualTo(512);
        assertThat(q.agreesOnSweep()).isTrue();
    }

    @Test
    void aWinBeforeALossDoesNotCountAndNeverWinningSaysSo() {
        long[] p = {32, 128, 512};
        EngineBreakeven b = EngineBreakeven.of(sweep(p, new double[][] {{10, 9}, {20, 25}, {200, 100}}, 1))
                .getFirst();
        assertThat(b.measured()).isEqualTo(512);
        EngineBreakeven all = EngineBreakeven.of(sweep(p, new double[][] {{10, 9}, {20, 15}, {200, 100}}, 1))
                .getFirst();
        assertThat(all.measured()).isEqualTo(32);
        assertThat(all.below()).isZero();
        assertThat(all.agrees()).isTrue();
        EngineBreakeven never = EngineBreakeven.of(sweep(p, new double[][] {{10, 11}, {20, 25}, {200, 300}}, 1))
                .getFirst();
        assertThat(never.measured()).isZero();
        assertThat(never.measuredText()).contains("never");
        assertThat(never.agrees()).isFalse();
    }

    @Test
    void cellsWithoutAPredictionOrOnlyOnePolicyMakeNoSweep() {
        List<CellData> one = new ArrayList<>(sweep(new long[] {32, 128}, new double[][] {{1, 2}, {3, 4}}, 1));
        one.removeIf(c -> c.factors().get("policy").equals("fetch"));
        assertThat(EngineBreakeven.of(one)).isEmpty();
        CellData noPrediction = new CellData(
                "x",
                Map.of("policy", "fetch"),
                "live",
                1,
                Map.of("ttft_p50_ms", stat(1)),
                Map.of(),
                List.of(),
                List.of(),
                MissingNode.getInstance(),
                Map.of());
        assertThat(EngineBreakeven.of(List.of(noPrediction))).isEmpty();
    }
}
