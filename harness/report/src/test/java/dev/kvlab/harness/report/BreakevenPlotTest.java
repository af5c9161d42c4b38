package dev.kvlab.harness.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.catalog.Breakeven;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.transport.api.LinkSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

class BreakevenPlotTest {

    static RunGeometry geometry(String... sets) {
        ConfigTree t = ConfigTree.defaults();
        for (String s : sets) t.set(s);
        return RunGeometry.of(t.tree());
    }

    @Test
    void theCurvesAreTheBreakevenApisAndTheCrossingsAreWhereItSaysTheWinnerChanges() {
        for (String link : List.of("10gbps", "25gbps", "100gbps@5us")) {
            for (int tp : List.of(1, 2)) {
                RunGeometry g = geometry("model=llama-3-8b", "hardware=h100", "transport=" + link, "cluster.tp=" + tp);
                Breakeven be = new Breakeven(g.roofline(), LinkSpec.parse(link));
                for (long n : List.of(1L, 100L, 4096L, 100_000L)) {
                    assertThat(g.fetchSeconds(n))
                            .as(link + " tp " + tp + " fetch " + n)
                            .isCloseTo(be.fetchSeconds(n), org.assertj.core.data.Percentage.withPercentage(1e-9));
                    assertThat(g.recomputeSeconds(n)).isEqualTo(be.recomputeSeconds(n));
                }
                long[] grid = BreakevenPlot.grid(1, 1 << 20, 200);
                List<Long> cross = BreakevenPlot.crossings(g, grid);
                // the last crossing is where fetch starts winning for good: the API's break-even length
                long always = be.breakevenTokens();
                if (always > 1)
                    assertThat(cross.getLast()).as(link + " tp " + tp).isEqualTo(always);
                // below the memory floor fetch wins too: the first crossing is where recompute starts winning
                double floor = be.memoryFloorTokens();
                if (floor > 1 && Double.isFinite(floor) && always > 1)
                    assertThat((double) cross.getFirst())
                            .as(link + " floor")
                            .isCloseTo(Math.ceil(floor), org.assertj.core.data.Offset.offset(1.0));
                for (long n : cross) {
                    // exactly the first length of the new winner
                    boolean before = g.recomputeSeconds(n - 1) > g.fetchSeconds(n - 1);
                    boolean at = g.recomputeSeconds(n) > g.fetchSeconds(n);
                    assertThat(at).isNotEqualTo(before);
                }
            }
        }
    }

    @Test
    void aFastLinkHasNoCrossingAndTransportNamesUseTheLinkKey() {
        RunGeometry fast = geometry("transport=4x200gbps");
        assertThat(BreakevenPlot.crossings(fast, BreakevenPlot.grid(16, 8192, 100)))
                .isEmpty();
        RunGeometry named = geometry("transport=tcp", "link=10gbps");
        assertThat(named.linkLabel()).isEqualTo("tcp: estimate from link 10gbps (uncalibrated)");
        assertThat(named.fetchSeconds(4096))
                .isEqualTo(geometry("transport=10gbps").fetchSeconds(4096));
    }

    @Test
    void anUnknownModelSaysWhich() {
        ConfigTree t = ConfigTree.defaults();
        var tree = t.tree();
        tree.put("model", "no-such-model");
        assertThatThrownBy(() -> RunGeometry.of(tree)).hasMessageContaining("no-such-model");
    }

    @Test
    void aRealEngineCellIsNotDrawnAsTheCatalogModelItsConfigNames() {
        var tree = ConfigTree.defaults().tree();
        tree.putObject("target").put("kind", "llama.cpp").put("model", "m.gguf");
        assertThatThrownBy(() -> RunGeometry.of(tree)).hasMessageContaining("llama.cpp target");
    }
}
