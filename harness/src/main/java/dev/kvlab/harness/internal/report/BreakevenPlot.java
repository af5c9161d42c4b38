package dev.kvlab.harness.internal.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Recompute vs fetch against prefix length: the roofline prefill time of a prefix (per model × GPU setup in the run)
 * and the time to fetch its KV over each link the run used (the transport model the run costed fetches with), on
 * log-log axes; every crossing is marked; measured fetches from {@code requests.csv} ({@code fetch_ms} against
 * {@code remote_hit_tokens}) are drawn on top.
 */
final class BreakevenPlot {

    private static final int MAX_LINKS = 8;
    private static final int MAX_MEASURED = 1500;
    /** Rows of requests.csv kept per plot for the medians (a uniform sample beyond). */
    private static final int SAMPLE = 1 << 17;
    private static final BasicStroke THICK = new BasicStroke(2.5f);

    /**
     * One link of one setup, for the table under the figure.
     *
     * @param setup        model on GPUs
     * @param link         the link as the run named it
     * @param cells        cells that used it
     * @param crossings    prefix lengths (tokens) where the winner changes, with who wins from there
     * @param medianPrompt median prompt length of those cells' requests (0 when unknown)
     * @param recomputeMs  recompute time of the median prompt
     * @param fetchMs      fetch time of the median prompt
     * @param measured     measured fetches drawn
     * @param measuredMedianRatio median of measured / modelled fetch time over the measured points (NaN without)
     */
    record Row(String setup, String link, List<String> cells, List<String> crossings, long medianPrompt, double recomputeMs,
               double fetchMs, int measured, double measuredMedianRatio) {}

    /** The figure and its table rows. */
    record Result(Plot plot, List<Row> rows) {}

    private BreakevenPlot() {}

    static Result of(BundleData b, Map<String, String> notes) {
        Map<String, RunGeometry> setups = new LinkedHashMap<>();
        Map<String, Map<String, RunGeometry>> links = new LinkedHashMap<>();
        Map<String, List<CellData>> cellsOf = new LinkedHashMap<>();
        Map<String, List<String>> problemCells = new LinkedHashMap<>(); // why -> the cells left out for it
        for (CellData cell : b.cells()) {
            RunGeometry g;
            try {
                g = RunGeometry.of(cell.config());
            } catch (RuntimeException e) {
                problemCells.computeIfAbsent(e.getMessage(), k -> new ArrayList<>()).add(cell.id());
                continue;
            }
            setups.putIfAbsent(g.setupKey(), g);
            links.computeIfAbsent(g.setupKey(), k -> new LinkedHashMap<>()).putIfAbsent(g.linkLabel(), g);
            cellsOf.computeIfAbsent(g.setupKey() + "\u0000" + g.linkLabel(), k -> new ArrayList<>()).add(cell);
        }
        List<String> problems = new ArrayList<>();
        problemCells.forEach((why, ids) -> problems.add(String.join(", ", ids) + ": " + why));
        if (setups.isEmpty()) {
            notes.put("breakeven", "No break-even plot: the model and hardware of the run could not be resolved ("
                    + String.join("; ", problems) + ").");
            return null;
        }
        boolean manySetups = setups.size() > 1;
        long maxN = 16;
        for (RunGeometry g : setups.values()) maxN = Math.max(maxN, Math.min(g.roofline().model().maxContext(), 131_072));
        long[] grid = grid(16, maxN, 160);

        XYChart c = new XYChartBuilder().width(ChartStyle.WIDTH).height(ChartStyle.HEIGHT + 80)
                .title("Recompute vs fetch: time to get a prefix's KV into the GPU")
                .xAxisTitle("prefix length (tokens, log scale)").yAxisTitle("time (ms, log scale)").build();
        ChartStyle.apply(c.getStyler());
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setXAxisDecimalPattern("#,##0");
        c.getStyler().setYAxisDecimalPattern("#,##0.###");
        ChartStyle.logX(c.getStyler(), 10, maxN);
        c.getStyler().setXAxisMin(10.0);
        c.getStyler().setMarkerSize(6);
        c.getStyler().setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Vertical);
        c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNW);
        c.getStyler().setLegendBackgroundColor(new Color(255, 255, 255, 225));
        c.getStyler().setLegendBorderColor(new Color(200, 200, 200));

        List<Row> rows = new ArrayList<>();
        int colour = 0;
        int drawnLinks = 0;
        for (Map.Entry<String, RunGeometry> se : setups.entrySet()) {
            RunGeometry setup = se.getValue();
            double[] rec = new double[grid.length];
            for (int i = 0; i < grid.length; i++) rec[i] = setup.recomputeSeconds(grid[i]) * 1e3;
            XYSeries rs = c.addSeries("recompute: roofline prefill" + (manySetups ? " (" + setup.setupLabel() + ")" : ""), toD(grid), rec);
            rs.setMarker(SeriesMarkers.NONE);
            rs.setLineColor(manySetups ? ChartStyle.color(7).brighter() : Color.BLACK);
            rs.setLineStyle(THICK);
            for (RunGeometry g : links.get(se.getKey()).values()) {
                if (drawnLinks >= MAX_LINKS) break;
                drawnLinks++;
                Color col = ChartStyle.color(colour == 7 ? ++colour : colour);
                colour++;
                double[] fetch = new double[grid.length];
                for (int i = 0; i < grid.length; i++) fetch[i] = g.fetchSeconds(grid[i]) * 1e3;
                String name = "fetch over " + g.linkLabel() + (manySetups ? " (" + setup.setupLabel() + ")" : "")
                        + (g.fetch().emulated() ? "" : ", calibrated");
                XYSeries fs = c.addSeries(name, toD(grid), fetch);
                fs.setMarker(SeriesMarkers.NONE);
                fs.setLineColor(col);
                fs.setLineStyle(THICK);

                List<Long> cross = crossings(g, grid);
                List<String> crossText = new ArrayList<>();
                if (!cross.isEmpty()) {
                    double[] cx = new double[cross.size()];
                    double[] cy = new double[cross.size()];
                    for (int i = 0; i < cross.size(); i++) {
                        long n = cross.get(i);
                        cx[i] = n;
                        cy[i] = g.fetchSeconds(n) * 1e3;
                        boolean fetchWinsFrom = g.recomputeSeconds(n) > g.fetchSeconds(n);
                        crossText.add(String.format(java.util.Locale.ROOT, "%,d tokens: %s wins from here", n, fetchWinsFrom ? "fetch" : "recompute"));
                    }
                    XYSeries xs = c.addSeries("break-even, " + g.linkLabel() + ": " + joinTokens(cross), cx, cy);
                    xs.setXYSeriesRenderStyle(org.knowm.xchart.XYSeries.XYSeriesRenderStyle.Scatter);
                    xs.setMarker(SeriesMarkers.DIAMOND);
                    xs.setMarkerColor(col.darker());
                } else {
                    boolean fetchAlways = g.recomputeSeconds(grid[grid.length / 2]) > g.fetchSeconds(grid[grid.length / 2]);
                    crossText.add((fetchAlways ? "fetch" : "recompute") + " wins at every length drawn (" + grid[0] + "–" + grid[grid.length - 1] + " tokens)");
                }

                List<CellData> cells = cellsOf.get(se.getKey() + "\u0000" + g.linkLabel());
                // streamed and sampled (bounded memory for million-request cells; exact below SAMPLE rows)
                Reservoir pts = new Reservoir(2, SAMPLE);
                Reservoir prompts = new Reservoir(1, SAMPLE);
                for (CellData cell : cells) {
                    for (Path d : cell.replicateDirs()) {
                        RequestsCsv.forEach(d.resolve("requests.csv"), List.of("remote_hit_tokens", "fetch_ms", "input_tokens"), row -> {
                            if (row[0] > 0 && row[1] > 0 && Double.isFinite(row[1])) pts.add(row[0], row[1]);
                            if (row[2] > 0) prompts.add(row[2]);
                        });
                    }
                }
                double ratio = Double.NaN;
                if (pts.size() > 0) {
                    int stride = Math.max(1, (pts.size() + MAX_MEASURED - 1) / MAX_MEASURED);
                    List<Double> mx = new ArrayList<>();
                    List<Double> my = new ArrayList<>();
                    double[] ratios = new double[pts.size()];
                    for (int i = 0; i < pts.size(); i++) {
                        ratios[i] = pts.get(i, 1) / (g.fetchSeconds((long) pts.get(i, 0)) * 1e3);
                        if (i % stride == 0) {
                            mx.add(pts.get(i, 0));
                            my.add(pts.get(i, 1));
                        }
                    }
                    Arrays.sort(ratios);
                    ratio = ratios[ratios.length / 2];
                    XYSeries ms = c.addSeries("measured fetches, " + g.linkLabel() + " (" + pts.seen() + " requests)", mx, my);
                    ms.setXYSeriesRenderStyle(org.knowm.xchart.XYSeries.XYSeriesRenderStyle.Scatter);
                    ms.setMarker(SeriesMarkers.CIRCLE);
                    ms.setMarkerColor(new Color(col.getRed(), col.getGreen(), col.getBlue(), 110));
                }
                long median = 0;
                if (prompts.size() > 0) {
                    double[] p = prompts.sorted(0);
                    median = Math.round(p[p.length / 2]);
                }
                rows.add(new Row(setup.setupLabel(), g.linkLabel(), cells.stream().map(CellData::id).toList(), crossText, median,
                        median > 0 ? g.recomputeSeconds(median) * 1e3 : Double.NaN, median > 0 ? g.fetchSeconds(median) * 1e3 : Double.NaN,
                        (int) Math.min(Integer.MAX_VALUE, pts.seen()), ratio));
            }
        }
        String caption = "Recompute: the roofline's prefill time for a prefix alone on one instance's GPUs (max of compute at the "
                + "hardware's prefill MFU and the weight + KV memory traffic). Fetch: the run's transport model for one instance "
                + "(per-GPU link × TP; per-batch latency plus the prefix's KV bytes over the bandwidth; no contention). Diamonds mark "
                + "where the winner changes; circles are measured fetches from requests.csv (fetch_ms against remote_hit_tokens, "
                + "with whatever contention and look-up cost the run had). Both axes are logarithmic."
                + (problems.isEmpty() ? "" : " Cells left out: " + String.join("; ", problems) + ".");
        return new Result(new Plot("breakeven", "Recompute vs fetch break-even", caption, c), rows);
    }

    /** Prefix lengths where recompute − fetch changes sign: the first length of the new winner. */
    static List<Long> crossings(RunGeometry g, long[] grid) {
        List<Long> out = new ArrayList<>();
        for (int i = 1; i < grid.length; i++) {
            boolean a = g.recomputeSeconds(grid[i - 1]) > g.fetchSeconds(grid[i - 1]);
            boolean z = g.recomputeSeconds(grid[i]) > g.fetchSeconds(grid[i]);
            if (a == z) continue;
            long lo = grid[i - 1];
            long hi = grid[i];
            while (hi - lo > 1) {
                long mid = (lo + hi) >>> 1;
                boolean m = g.recomputeSeconds(mid) > g.fetchSeconds(mid);
                if (m == a) lo = mid;
                else hi = mid;
            }
            out.add(hi);
        }
        return out;
    }

    static long[] grid(long from, long to, int points) {
        TreeSet<Long> s = new TreeSet<>();
        double lf = Math.log(from);
        double lt = Math.log(to);
        for (int i = 0; i < points; i++) s.add(Math.round(Math.exp(lf + (lt - lf) * i / (points - 1))));
        return s.stream().mapToLong(Long::longValue).toArray();
    }

    private static double[] toD(long[] a) {
        double[] d = new double[a.length];
        for (int i = 0; i < a.length; i++) d[i] = a[i];
        return d;
    }

    private static String joinTokens(List<Long> ns) {
        List<String> s = new ArrayList<>();
        for (long n : ns) s.add(String.format(java.util.Locale.ROOT, "%,d", n));
        return String.join(", ", s) + " tokens";
    }
}
