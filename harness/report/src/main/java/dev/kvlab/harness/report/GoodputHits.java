package dev.kvlab.harness.report;

import dev.kvlab.harness.api.Columns;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;

/**
 * The pair every report shows together (capacity is not throughput): goodput under SLO per cell, drawn in front of
 * the completed-request throughput so the gap is the SLO misses; and the prompt-token hit ratio per tier.
 */
final class GoodputHits {

    private static final int HALF = ChartStyle.WIDTH / 2 + 60;

    private GoodputHits() {}

    static Plot goodput(BundleData b) {
        CategoryChart c = new CategoryChartBuilder()
                .width(HALF)
                .height(ChartStyle.HEIGHT + 40)
                .title("Goodput under SLO per cell")
                .xAxisTitle("cell")
                .yAxisTitle("requests / s")
                .build();
        ChartStyle.apply(c.getStyler());
        Labels.style(c, b.cells(), HALF);
        c.getStyler().setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Vertical);
        c.getStyler().setOverlapped(true);
        c.getStyler().setAvailableSpaceFill(0.7);
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setErrorBarsColor(ChartStyle.TEXT);
        c.getStyler().setYAxisDecimalPattern("#,##0.##");
        List<String> x = Labels.of(b.cells());
        boolean haveThroughput = b.cells().stream()
                .allMatch(cell -> Double.isFinite(
                        cell.metric(Columns.THROUGHPUT_RPS.name()).mean()));
        if (haveThroughput) {
            List<Number> t = new ArrayList<>();
            for (CellData cell : b.cells())
                t.add(cell.metric(Columns.THROUGHPUT_RPS.name()).mean());
            CategorySeries s = c.addSeries("throughput (completed req/s)", x, t);
            s.setFillColor(new java.awt.Color(205, 205, 205));
        }
        List<Number> g = new ArrayList<>();
        List<Number> e = new ArrayList<>();
        for (CellData cell : b.cells()) {
            Stat s = cell.metric(Columns.GOODPUT_RPS.name());
            g.add(Double.isFinite(s.mean()) ? s.mean() : 0.0);
            e.add(Double.isFinite(s.mean()) ? s.halfWidth() : 0.0);
        }
        CategorySeries s = c.addSeries("goodput (met every SLO), 95% CI", x, g, e);
        s.setFillColor(ChartStyle.color(0));
        String caption = "Requests per second that met every SLO given (blue, mean over replicates with 95% CI)"
                + (haveThroughput
                        ? " in front of all completed requests per second (grey): the grey above the blue is the SLO misses."
                        : ".")
                + " Read it with the hit ratios beside it.";
        return new Plot("goodput", "Goodput under SLO", caption, c);
    }

    static Plot hits(BundleData b) {
        CategoryChart c = new CategoryChartBuilder()
                .width(HALF)
                .height(ChartStyle.HEIGHT + 40)
                .title("Prompt tokens served from cache, per tier")
                .xAxisTitle("cell")
                .yAxisTitle("share of prompt tokens (%)")
                .build();
        ChartStyle.apply(c.getStyler());
        Labels.style(c, b.cells(), HALF);
        c.getStyler().setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Vertical);
        c.getStyler().setStacked(true);
        c.getStyler().setAvailableSpaceFill(0.7);
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setYAxisMax(100.0);
        c.getStyler().setYAxisDecimalPattern("#0");
        List<String> x = Labels.of(b.cells());
        addPct(c, b, x, "local tier (HBM + DRAM)", Columns.LOCAL_HIT_RATIO.name(), null, ChartStyle.color(2));
        addPct(c, b, x, "remote store (fetched, verified)", Columns.REMOTE_HIT_RATIO.name(), null, ChartStyle.color(0));
        boolean haveAvail = b.cells().stream()
                .allMatch(cell -> Double.isFinite(
                        cell.metric(Columns.REMOTE_AVAILABLE_RATIO.name()).mean()));
        if (haveAvail)
            addPct(
                    c,
                    b,
                    x,
                    "in the store, not fetched (policy)",
                    Columns.REMOTE_AVAILABLE_RATIO.name(),
                    Columns.REMOTE_HIT_RATIO.name(),
                    new java.awt.Color(180, 210, 235));
        String caption =
                "Share of prompt tokens served by the local tier and fetched from the shared store (mean over replicates)"
                        + (haveAvail
                                ? "; light blue: held by the store in continuation of the local hit but recomputed because the policy chose not to fetch."
                                : ".")
                        + " The rest was prefilled.";
        return new Plot("hit-ratios", "Hit ratio per tier", caption, c);
    }

    private static void addPct(
            CategoryChart c,
            BundleData b,
            List<String> x,
            String name,
            String col,
            String minus,
            java.awt.Color color) {
        List<Number> y = new ArrayList<>();
        for (CellData cell : b.cells()) {
            double v = cell.metric(col).mean();
            if (minus != null) v -= cell.metric(minus).mean();
            y.add(Double.isFinite(v) ? Math.max(0, v) * 100 : 0.0);
        }
        CategorySeries s = c.addSeries(name, x, y);
        s.setFillColor(color);
    }
}
