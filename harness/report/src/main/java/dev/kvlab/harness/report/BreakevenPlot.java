package dev.kvlab.harness.report;

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
    record Row(
            String setup,
            String link,
            List<String> cells,
            List<String> crossings,
            long medianPrompt,
            double recomputeMs,
            double fetchMs,
            int measured,
            double measuredMedianRatio) {}

    /** The figure and its table rows. */
    record Result(Plot plot, List<Row> rows) {}

    private BreakevenPlot() {}

    /** The run's cells grouped by model × GPU setup and, within a setup, by link; the cells whose geometry could not be read. */
    private record Groups(
            Map<String, RunGeometry> setups,
            Map<String, Map<String, RunGeometry>> links,
            Map<String, List<CellData>> cellsOf,
            Map<String, List<String>> problemCells) {

        static Groups of(BundleData b) {
            Groups g = new Groups(
                    new LinkedHashMap<>(), new LinkedHashMap<>(), new LinkedHashMap<>(), new LinkedHashMap<>());
            for (CellData cell : b.cells()) {
                RunGeometry geometry;
                try {
                    geometry = RunGeometry.of(cell.config());
                } catch (RuntimeException e) {
                    g.problemCells
                            .computeIfAbsent(e.getMessage(), k -> new ArrayList<>())
                            .add(cell.id()); // why -> the cells left out for it
                    continue;
                }
                g.setups.putIfAbsent(geometry.setupKey(), geometry);
                g.links
                        .computeIfAbsent(geometry.setupKey(), k -> new LinkedHashMap<>())
                        .putIfAbsent(geometry.linkLabel(), geometry);
                g.cellsOf
                        .computeIfAbsent(cellsKey(geometry), k -> new ArrayList<>())
                        .add(cell);
            }
            return g;
        }

        /** The cells left out, once per reason: "c01, c02: why". */
        List<String> problems() {
            List<String> out = new ArrayList<>();
            problemCells.forEach((why, ids) -> out.add(String.join(", ", ids) + ": " + why));
            return out;
        }

        static String cellsKey(RunGeometry g) {
            return g.setupKey() + "\u0000" + g.linkLabel();
        }
    }

    static Result of(BundleData b, Map<String, String> notes) {
        Groups groups = Groups.of(b);
        if (groups.setups().isEmpty()) {
            notes.put(
                    "breakeven",
                    "No break-even plot: the model and hardware of the run could not be resolved ("
                            + String.join("; ", groups.problems()) + ").");
            return null;
        }
        boolean manySetups = groups.setups().size() > 1;
        long maxN = 16;
        for (RunGeometry g : groups.setups().values())
            maxN = Math.max(maxN, Math.min(g.roofline().model().maxContext(), 131_072));
        long[] grid = grid(16, maxN, 160);
        XYChart c = chart(maxN);

        List<Row> rows = new ArrayList<>();
        int colour = 0;
        int drawnLinks = 0;
        for (Map.Entry<String, RunGeometry> se : groups.setups().entrySet()) {
            RunGeometry setup = se.getValue();
            drawRecompute(c, setup, grid, manySetups);
            for (RunGeometry g : groups.links().get(se.getKey()).values()) {
                if (drawnLinks >= MAX_LINKS) break;
                drawnLinks++;
                Color col = ChartStyle.color(colour == 7 ? ++colour : colour);
                colour++;
                rows.add(drawLink(c, setup, g, grid, col, groups.cellsOf().get(Groups.cellsKey(g)), manySetups));
            }
        }
        return new Result(new Plot("breakeven", "Recompute vs fetch break-even", caption(groups.problems()), c), rows);
    }

    private static XYChart chart(long maxN) {
        XYChart c = new XYChartBuilder()
                .width(ChartStyle.WIDTH)
                .height(ChartStyle.HEIGHT + 80)
                .title("Recompute vs fetch: time to get a prefix's KV into the GPU")
                .xAxisTitle("prefix length (tokens, log scale)")
                .yAxisTitle("time (ms, log scale)")
                .build();
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
        return c;
    }

    /** The setup's roofline prefill time against prefix length. */
    private static void drawRecompute(XYChart c, RunGeometry setup, long[] grid, boolean manySetups) {
        double[] rec = new double[grid.length];
        for (int i = 0; i < grid.length; i++) rec[i] = setup.recomputeSeconds(grid[i]) * 1e3;
        XYSeries rs = c.addSeries(
                "recompute: roofline prefill" + (manySetups ? " (" + setup.setupLabel() + ")" : ""), toD(grid), rec);
        rs.setMarker(SeriesMarkers.NONE);
        rs.setLineColor(manySetups ? ChartStyle.color(7).brighter() : Color.BLACK);
        rs.setLineStyle(THICK);
    }

    /** One link of a setup: its modelled fetch time, its crossings, the measured fetches of its cells; its table row. */
    private static Row drawLink(
            XYChart c,
            RunGeometry setup,
            RunGeometry g,
            long[] grid,
            Color col,
            List<CellData> cells,
            boolean manySetups) {
        double[] fetch = new double[grid.length];
        for (int i = 0; i < grid.length; i++) fetch[i] = g.fetchSeconds(grid[i]) * 1e3;
        String name = "fetch over " + g.linkLabel() + (manySetups ? " (" + setup.setupLabel() + ")" : "")
                + (g.fetch().emulated() ? "" : ", calibrated");
        XYSeries fs = c.addSeries(name, toD(grid), fetch);
        fs.setMarker(SeriesMarkers.NONE);
        fs.setLineColor(col);
        fs.setLineStyle(THICK);
        List<String> crossText = drawCrossings(c, g, grid, col);

        // streamed and sampled (bounded memory for million-request cells; exact below SAMPLE rows)
        Reservoir pts = new Reservoir(2, SAMPLE);
        Reservoir prompts = new Reservoir(1, SAMPLE);
        for (CellData cell : cells) {
            for (Path d : cell.replicateDirs()) {
                RequestsCsv.forEach(d, List.of("remote_hit_tokens", "fetch_ms", "input_tokens"), row -> {
                    if (row[0] > 0 && row[1] > 0 && Double.isFinite(row[1])) pts.add(row[0], row[1]);
                    if (row[2] > 0) prompts.add(row[2]);
                });
            }
        }
        double ratio = pts.size() > 0 ? drawMeasured(c, g, pts, col) : Double.NaN;
        long median = 0;
        if (prompts.size() > 0) {
            double[] p = prompts.sorted(0);
            median = Math.round(p[p.length / 2]);
        }
        return new Row(
                setup.setupLabel(),
                g.linkLabel(),
                cells.stream().map(CellData::id).toList(),
                crossText,
                median,
                median > 0 ? g.recomputeSeconds(median) * 1e3 : Double.NaN,
                median > 0 ? g.fetchSeconds(median) * 1e3 : Double.NaN,
                (int) Math.min(Integer.MAX_VALUE, pts.seen()),
                ratio);
    }

    /** Marks where the winner changes; returns the table's text for them (or who wins everywhere). */
    private static List<String> drawCrossings(XYChart c, RunGeometry g, long[] grid, Color col) {
        List<Long> cross = crossings(g, grid);
        List<String> crossText = new ArrayList<>();
        if (cross.isEmpty()) {
            boolean fetchAlways = g.recomputeSeconds(grid[grid.length / 2]) > g.fetchSeconds(grid[grid.length / 2]);
            crossText.add((fetchAlways ? "fetch" : "recompute") + " wins at every length drawn (" + grid[0] + "–"
                    + grid[grid.length - 1] + " tokens)");
            return crossText;
        }
        double[] cx = new double[cross.size()];
        double[] cy = new double[cross.size()];
        for (int i = 0; i < cross.size(); i++) {
            long n = cross.get(i);
            cx[i] = n;
            cy[i] = g.fetchSeconds(n) * 1e3;
            boolean fetchWinsFrom = g.recomputeSeconds(n) > g.fetchSeconds(n);
            crossText.add(String.format(
                    java.util.Locale.ROOT, "%,d tokens: %s wins from here", n, fetchWinsFrom ? "fetch" : "recompute"));
        }
        XYSeries xs = c.addSeries("break-even, " + g.linkLabel() + ": " + joinTokens(cross), cx, cy);
        xs.setXYSeriesRenderStyle(org.knowm.xchart.XYSeries.XYSeriesRenderStyle.Scatter);
        xs.setMarker(SeriesMarkers.DIAMOND);
        xs.setMarkerColor(col.darker());
        return crossText;
    }

    /** Draws (a stride of) the measured fetches; returns the median of measured / modelled fetch time. */
    private static double drawMeasured(XYChart c, RunGeometry g, Reservoir pts, Color col) {
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
        XYSeries ms = c.addSeries("measured fetches, " + g.linkLabel() + " (" + pts.seen() + " requests)", mx, my);
        ms.setXYSeriesRenderStyle(org.knowm.xchart.XYSeries.XYSeriesRenderStyle.Scatter);
        ms.setMarker(SeriesMarkers.CIRCLE);
        ms.setMarkerColor(new Color(col.getRed(), col.getGreen(), col.getBlue(), 110));
        return ratios[ratios.length / 2];
    }

    private static String caption(List<String> problems) {
        return "Recompute: the roofline's prefill time for a prefix alone on one instance's GPUs (max of compute at the "
                + "hardware's prefill MFU and the weight + KV memory traffic). Fetch: the run's transport model for one instance "
                + "(per-GPU link × TP; per-batch latency plus the prefix's KV bytes over the bandwidth; no contention). Diamonds mark "
                + "where the winner changes; circles are measured fetches from requests.csv (fetch_ms against remote_hit_tokens, "
                + "with whatever contention and look-up cost the run had). Both axes are logarithmic."
                + (problems.isEmpty() ? "" : " Cells left out: " + String.join("; ", problems) + ".");
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
