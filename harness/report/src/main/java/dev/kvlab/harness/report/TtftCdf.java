package dev.kvlab.harness.report;

import dev.kvlab.harness.api.config.ConfigKeys;
import java.awt.BasicStroke;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * TTFT CDFs from the {@code ttft.hlog} files (all replicates of a cell merged). With a {@code cache_state} factor,
 * cold cells are solid and hot cells dashed, and a cold cell and its hot twin (same other factors) share a colour.
 */
final class TtftCdf {

    static final int MAX_SERIES = 16;
    private static final int MAX_POINTS = 300;
    private static final BasicStroke SOLID = new BasicStroke(2f);
    private static final BasicStroke DASHED =
            new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, new float[] {7f, 4f}, 0f);

    private TtftCdf() {}

    /** The plot, or null (with a note) when no cell has TTFT values. */
    static Plot of(BundleData b, Map<String, String> notes) {
        boolean coldHot =
                b.factors().getOrDefault(ConfigKeys.CACHE_STATE, List.of()).containsAll(List.of("cold", "hot"));
        List<CellData> cells = new ArrayList<>(b.cells());
        if (cells.size() > MAX_SERIES) cells = cells.subList(0, MAX_SERIES);
        Map<String, Integer> colourOf = new LinkedHashMap<>();
        XYChart c = new XYChartBuilder()
                .width(ChartStyle.WIDTH)
                .height(ChartStyle.HEIGHT + 20 * cells.size())
                .title(coldHot ? "TTFT CDF: cold (solid) vs hot (dashed)" : "TTFT CDF per cell")
                .xAxisTitle("TTFT (ms, log scale)")
                .yAxisTitle("requests with TTFT ≤ x (%)")
                .build();
        ChartStyle.apply(c.getStyler());
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setYAxisMax(100.0);
        c.getStyler().setYAxisDecimalPattern("#0");
        c.getStyler().setXAxisDecimalPattern("#,##0.###");
        c.getStyler().setMarkerSize(0);
        c.getStyler().setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Vertical);
        int drawn = 0;
        double minMs = Double.MAX_VALUE;
        double maxMs = 0;
        for (CellData cell : cells) {
            Histogram h = Hlogs.merged(cell, "ttft");
            if (h.getTotalCount() == 0) continue;
            minMs = Math.min(minMs, Math.max(1, h.getMinValue()) / 1000.0);
            maxMs = Math.max(maxMs, h.getMaxValue() / 1000.0);
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            points(h, x, y);
            String state = cell.factors().get(ConfigKeys.CACHE_STATE);
            String twinKey = twin(cell);
            int colour = colourOf.computeIfAbsent(coldHot ? twinKey : cell.id(), k -> colourOf.size());
            XYSeries s = c.addSeries(
                    cell.id() + "  (n=" + h.getTotalCount() + ", p99 " + Fmt.num(h.getValueAtPercentile(99) / 1000.0)
                            + " ms)",
                    x,
                    y);
            s.setMarker(SeriesMarkers.NONE);
            s.setLineColor(ChartStyle.color(colour));
            s.setLineStyle(coldHot && "hot".equals(state) ? DASHED : SOLID);
            drawn++;
        }
        ChartStyle.logX(c.getStyler(), minMs, maxMs);
        if (drawn == 0) {
            notes.put("cdf", "No cell recorded a TTFT value (no ttft.hlog with values), so there is no CDF.");
            return null;
        }
        String caption =
                "Empirical CDF of time to first token over every measured request of a cell (all replicates merged, "
                        + "read from cells/<cell>/r<k>/ttft.hlog with HdrHistogram's HistogramLogReader). "
                        + (coldHot
                                ? "Cold: tiers empty at the start; hot: tiers warmed by an unmeasured warm-up pass. A cold cell and its hot twin share a colour. "
                                : "This run has no cold/hot factor, so every cell is drawn alike. ")
                        + "Curves further left are faster; the top of each curve is the tail."
                        + (b.cells().size() > MAX_SERIES ? " Only the first " + MAX_SERIES + " cells are drawn." : "");
        return new Plot("ttft-cdf", coldHot ? "TTFT CDF, cold vs hot" : "TTFT CDF per cell", caption, c);
    }

    /** The other factors' values: a cold cell and its hot twin share this. */
    private static String twin(CellData cell) {
        Map<String, String> f = new LinkedHashMap<>(cell.factors());
        f.remove(ConfigKeys.CACHE_STATE);
        return f.toString();
    }

    private static void points(Histogram h, List<Double> x, List<Double> y) {
        long total = h.getTotalCount();
        List<double[]> all = new ArrayList<>();
        long cum = 0;
        for (HistogramIterationValue v : h.recordedValues()) {
            cum += v.getCountAtValueIteratedTo();
            double ms = Math.max(h.highestEquivalentValue(v.getValueIteratedTo()), 1) / 1000.0;
            all.add(new double[] {ms, 100.0 * cum / total});
        }
        int stride = Math.max(1, (all.size() + MAX_POINTS - 1) / MAX_POINTS);
        // start the curve at 0% at the first value so a step is visible
        x.add(all.getFirst()[0]);
        y.add(0.0);
        for (int i = 0; i < all.size(); i++) {
            if (i % stride == 0 || i == all.size() - 1) {
                x.add(all.get(i)[0]);
                y.add(all.get(i)[1]);
            }
        }
    }
}
