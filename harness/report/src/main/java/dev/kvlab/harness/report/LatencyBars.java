package dev.kvlab.harness.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;

/**
 * Bar charts of one latency metric's p50 and p99 per cell: the mean over replicates, with the 95% interval of
 * the mean as whiskers (none when a cell ran once).
 */
final class LatencyBars {

    private LatencyBars() {}

    /** {@code metric} is the column stem ({@code ttft}, {@code itl}, …); {@code display} its name in titles. */
    static Plot of(BundleData b, String metric, String display, String definition) {
        CategoryChart c = new CategoryChartBuilder()
                .width(ChartStyle.WIDTH)
                .height(ChartStyle.HEIGHT)
                .title(display + " p50 and p99 per cell (mean over replicates, 95% CI)")
                .xAxisTitle("cell")
                .yAxisTitle(display + " (ms)")
                .build();
        ChartStyle.apply(c.getStyler());
        Labels.style(c, b.cells());
        c.getStyler().setErrorBarsColor(ChartStyle.TEXT);
        c.getStyler().setAvailableSpaceFill(0.7);
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setYAxisDecimalPattern("#,##0.###");
        List<String> x = Labels.of(b.cells());
        int i = 0;
        for (String pct : List.of("p50", "p99")) {
            List<Number> y = new ArrayList<>();
            List<Number> err = new ArrayList<>();
            for (CellData cell : b.cells()) {
                Stat s = cell.metric(metric + "_" + pct + "_ms");
                y.add(Double.isFinite(s.mean()) ? s.mean() : 0.0);
                err.add(Double.isFinite(s.mean()) ? s.halfWidth() : 0.0);
            }
            CategorySeries series = c.addSeries(display + " " + pct, x, y, err);
            series.setFillColor(ChartStyle.color(i == 0 ? 5 : 0));
            i++;
        }
        long ran = b.cells().stream().mapToInt(CellData::replicates).max().orElse(0);
        String caption = String.format(
                Locale.ROOT,
                "%s: %s. Bars are the mean of the per-replicate percentile over %s; "
                        + "whiskers are the Student-t 95%% interval of that mean (none where a cell ran once). A cell without "
                        + "values (e.g. no request qualified) shows an empty bar.",
                display,
                definition,
                ran == 1 ? "one replicate" : "the replicates");
        return new Plot(metric + "-p50-p99", display + " p50 / p99 per cell", caption, c);
    }
}
