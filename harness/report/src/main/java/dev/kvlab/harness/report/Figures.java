package dev.kvlab.harness.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides which figures a bundle gets and builds them. A figure that does not apply (no cell config to draw a
 * roofline from, no fault factor and no live cells for the tails over time) leaves a note saying why instead.
 *
 * @param plots     the figures, in page order
 * @param notes     section id → why its figure is missing
 * @param breakeven the break-even table's rows (empty without the figure)
 */
record Figures(List<Plot> plots, Map<String, String> notes, List<BreakevenPlot.Row> breakeven) {

    static Figures of(BundleData b) {
        List<Plot> out = new ArrayList<>();
        Map<String, String> notes = new LinkedHashMap<>();
        List<BreakevenPlot.Row> rows = List.of();
        if (b.cells().isEmpty()) {
            notes.put("cdf", "The bundle has no cells.");
            return new Figures(out, notes, rows);
        }
        out.add(LatencyBars.of(b, "ttft", "TTFT", "intended arrival to first output token"));
        out.add(LatencyBars.of(b, "itl", "ITL", "every gap between consecutive output tokens, pooled over requests"));
        out.add(GoodputHits.goodput(b));
        out.add(GoodputHits.hits(b));
        add(out, TtftCdf.of(b, notes));
        BreakevenPlot.Result be = BreakevenPlot.of(b, notes);
        if (be != null) {
            out.add(be.plot());
            rows = be.rows();
        }
        String skip = TailOverTime.reasonToSkip(b);
        if (skip != null) notes.put("tails", skip);
        else {
            add(out, HitsOverTime.of(b, notes));
            add(out, TailOverTime.of(b, "ttft", "TTFT", notes));
            add(out, TailOverTime.of(b, "itl", "ITL", notes));
        }
        return new Figures(out, notes, rows);
    }

    private static void add(List<Plot> out, Plot p) {
        if (p != null) out.add(p);
    }
}
