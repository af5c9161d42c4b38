package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.config.ConfigKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The figures of the capacity section, from {@code capacity.json}: capacity per cell with its 95% interval next
 * to the hit ratios at capacity; SLO attainment against offered load (every probe of every replicate a point, the
 * target drawn); goodput against offered load.
 */
final class CapacityPlots {

    private CapacityPlots() {}

    static List<Plot> of(JsonNode cap) {
        List<Plot> out = new ArrayList<>();
        if (cap == null || !cap.path("summary").isArray() || cap.path("summary").isEmpty()) return out;
        out.add(capacity(cap));
        out.add(hits(cap));
        out.add(vsLoad(cap, "attainment", "capacity-attainment", "SLO attainment vs offered load"));
        out.add(vsLoad(cap, Columns.GOODPUT_RPS.name(), "capacity-goodput", "Goodput vs offered load"));
        if (cap.path("link_sweep").path("groups").size() > 0) out.add(vsLink(cap));
        return out;
    }

    private static List<String> cells(JsonNode cap) {
        List<String> x = new ArrayList<>();
        cap.path("summary").forEach(c -> x.add(c.path("cell").asText()));
        return x;
    }

    private static void rotate(CategoryChart c, List<String> x, int width) {
        int longest = x.stream().mapToInt(String::length).max().orElse(0);
        if (longest * 7 > (width - 120) / Math.max(1, x.size()))
            c.getStyler().setXAxisLabelRotation(x.size() > 12 ? 90 : 30);
    }

    private static Plot capacity(JsonNode cap) {
        int w = ChartStyle.WIDTH / 2 + 60;
        String knob = cap.path("knob").asText();
        CategoryChart c = new CategoryChartBuilder()
                .width(w)
                .height(ChartStyle.HEIGHT + 40)
                .title("Capacity under SLO per cell")
                .xAxisTitle("cell")
                .yAxisTitle(knob.replace("workload.arrival.", ""))
                .build();
        ChartStyle.apply(c.getStyler());
        c.getStyler().setErrorBarsColor(ChartStyle.TEXT);
        c.getStyler().setAvailableSpaceFill(0.6);
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setYAxisDecimalPattern("#,##0.###");
        List<String> x = cells(cap);
        rotate(c, x, w);
        List<Number> y = new ArrayList<>(), e = new ArrayList<>();
        for (JsonNode s : cap.path("summary")) {
            JsonNode k = s.path("capacity");
            double m = k.path("mean").asDouble(Double.NaN);
            y.add(Double.isFinite(m) ? m : 0.0);
            JsonNode ci = k.path("ci95");
            e.add(ci.isArray() ? (ci.get(1).asDouble() - ci.get(0).asDouble()) / 2 : 0.0);
        }
        CategorySeries s = c.addSeries("capacity (mean, 95% CI)", x, y, e);
        s.setFillColor(ChartStyle.color(0));
        String caption = String.format(
                Locale.ROOT,
                "The highest %s at which SLO attainment stayed at or above %s (%s rule), per cell: the mean "
                        + "over replicates with its Student-t 95%% interval. An empty bar: no capacity within [min, max]. Read it with the hit "
                        + "ratios at capacity beside it: a higher hit ratio that buys no capacity shows as a taller right bar over an equal left one.",
                knob,
                cap.path("target_attainment").asText(),
                cap.path("rule").asText());
        return new Plot("capacity", "Capacity under SLO", caption, c);
    }

    private static Plot hits(JsonNode cap) {
        int w = ChartStyle.WIDTH / 2 + 60;
        CategoryChart c = new CategoryChartBuilder()
                .width(w)
                .height(ChartStyle.HEIGHT + 40)
                .title("Hit ratios at capacity")
                .xAxisTitle("cell")
                .yAxisTitle("share of prompt tokens (%)")
                .build();
        ChartStyle.apply(c.getStyler());
        c.getStyler().setStacked(true);
        c.getStyler().setAvailableSpaceFill(0.6);
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setYAxisMax(100.0);
        c.getStyler().setYAxisDecimalPattern("#0");
        List<String> x = cells(cap);
        rotate(c, x, w);
        int i = 0;
        for (String[] col : List.of(
                new String[] {"local_hit_ratio_at_capacity", "local tier"},
                new String[] {"remote_hit_ratio_at_capacity", "remote store"})) {
            List<Number> y = new ArrayList<>();
            for (JsonNode s : cap.path("summary")) {
                double v = s.path(col[0]).path("mean").asDouble(Double.NaN);
                y.add(Double.isFinite(v) ? 100 * v : 0.0);
            }
            c.addSeries(col[1], x, y).setFillColor(ChartStyle.color(i == 0 ? 2 : 0));
            i++;
        }
        return new Plot(
                "capacity-hits",
                "Hit ratios at capacity",
                "Share of prompt tokens served by the local tier and fetched from the store in the run at each cell's capacity (mean over replicates).",
                c);
    }

    /** Capacity against link bandwidth per remote tier setup, no cache's capacity as a line: where they cross is the break-even link. */
    private static Plot vsLink(JsonNode cap) {
        JsonNode sweep = cap.path("link_sweep");
        XYChart c = new XYChartBuilder()
                .width(ChartStyle.WIDTH + 220)
                .height(ChartStyle.HEIGHT + 40)
                .title("Capacity vs link bandwidth")
                .xAxisTitle("link bandwidth per GPU (Gbps, effective for a 1 GiB fetch)")
                .yAxisTitle(cap.path("knob").asText().replace("workload.arrival.", ""))
                .build();
        ChartStyle.apply(c.getStyler());
        c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
        c.getStyler().setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Vertical);
        c.getStyler().setMarkerSize(8);
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setYAxisDecimalPattern("#,##0.##");
        c.getStyler().setXAxisDecimalPattern("#,##0.##");
        double min = Double.POSITIVE_INFINITY, max = 0;
        for (JsonNode g : sweep.path("groups"))
            for (JsonNode p : g.path("points")) {
                min = Math.min(min, p.path("gbps").asDouble());
                max = Math.max(max, p.path("gbps").asDouble());
            }
        if (max > 0 && max / min >= 8) ChartStyle.logX(c.getStyler(), min, max);
        int i = 0;
        List<String> refs = new ArrayList<>();
        StringBuilder be = new StringBuilder();
        for (JsonNode g : sweep.path("groups")) {
            List<Double> xs = new ArrayList<>(), ys = new ArrayList<>(), es = new ArrayList<>();
            for (JsonNode p : g.path("points")) {
                double y = p.path("capacity").path("mean").asDouble(Double.NaN);
                if (!Double.isFinite(y)) continue;
                xs.add(p.path("gbps").asDouble());
                ys.add(y);
                JsonNode ci = p.path("capacity").path("ci95");
                es.add(ci.isArray() ? (ci.get(1).asDouble() - ci.get(0).asDouble()) / 2 : 0.0);
            }
            if (xs.isEmpty()) continue;
            String name = g.path("tiers").asText() + " "
                    + g.path("levels").path(ConfigKeys.CACHE_STATE).asText("");
            XYSeries s = c.addSeries(name.strip(), xs, ys, es);
            s.setMarkerColor(ChartStyle.color(i));
            s.setLineColor(ChartStyle.color(i));
            s.setMarker(SeriesMarkers.CIRCLE);
            i++;
            String ref = g.path("reference").asText("");
            double rc = g.path("reference_capacity").asDouble(Double.NaN);
            if (!ref.isEmpty() && Double.isFinite(rc) && !refs.contains(ref)) {
                refs.add(ref);
                XYSeries r = c.addSeries("no cache (" + ref + ")", new double[] {min, max}, new double[] {rc, rc});
                r.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
                r.setMarker(SeriesMarkers.NONE);
                r.setLineColor(ChartStyle.TEXT);
            }
            if (g.path("breakeven").path("text").isTextual())
                be.append(" ").append(g.path("breakeven").path("text").asText()).append('.');
        }
        String caption = "Capacity (mean over replicates, 95% interval) of each remote tier setup on every link swept ("
                + sweep.path("factor").asText()
                + "), against the link's effective bandwidth; the flat line is no cache's capacity. Where a setup's line crosses it is its "
                + "break-even link (interpolated on log bandwidth between the two links around it)." + be;
        return new Plot("capacity-link", "Capacity vs link bandwidth", caption, c);
    }

    private static Plot vsLoad(JsonNode cap, String field, String name, String title) {
        boolean att = field.equals("attainment");
        String knob = cap.path("knob").asText();
        XYChart c = new XYChartBuilder()
                .width(ChartStyle.WIDTH + 220)
                .height(ChartStyle.HEIGHT + 40)
                .title(title)
                .xAxisTitle("offered load: " + knob)
                .yAxisTitle(att ? "SLO attainment (%)" : "goodput (requests / s meeting the SLO)")
                .build();
        ChartStyle.apply(c.getStyler());
        c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        c.getStyler().setMarkerSize(8);
        c.getStyler().setYAxisMin(0.0);
        if (att) c.getStyler().setYAxisMax(100.0);
        c.getStyler().setYAxisDecimalPattern("#,##0.##");
        c.getStyler().setXAxisDecimalPattern("#,##0.###");
        // a column beside the plot: one line per cell, however many (a row below cuts a long legend at both edges)
        c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
        c.getStyler().setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Vertical);
        Map<String, List<double[]>> byCell = new LinkedHashMap<>();
        double min = Double.POSITIVE_INFINITY, max = 0;
        for (JsonNode e : cap.path("cells")) {
            List<double[]> pts = byCell.computeIfAbsent(e.path("cell").asText(), k -> new ArrayList<>());
            for (JsonNode p : e.path("probes")) {
                double x = p.path("load").asDouble(), y = p.path(field).asDouble(Double.NaN);
                if (!Double.isFinite(y)) continue;
                pts.add(new double[] {x, att ? 100 * y : y});
                min = Math.min(min, x);
                max = Math.max(max, x);
            }
        }
        boolean log = max > 0 && min > 0 && max / min >= 8;
        if (log) ChartStyle.logX(c.getStyler(), min, max);
        int i = 0;
        var markers = List.of(
                SeriesMarkers.CIRCLE,
                SeriesMarkers.DIAMOND,
                SeriesMarkers.SQUARE,
                SeriesMarkers.TRIANGLE_UP,
                SeriesMarkers.TRIANGLE_DOWN);
        int shown = (int) byCell.values().stream().filter(v -> !v.isEmpty()).count();
        Map<String, String> firstWith = new LinkedHashMap<>(); // probe points -> the first cell that has them
        for (var en : byCell.entrySet()) {
            if (en.getValue().isEmpty()) continue;
            List<double[]> pts = new ArrayList<>(en.getValue());
            pts.sort((a, b) -> a[0] != b[0] ? Double.compare(a[0], b[0]) : Double.compare(a[1], b[1]));
            String key = pts.stream().map(p -> p[0] + ":" + p[1]).reduce("", (a, b) -> a + " " + b);
            String same = firstWith.putIfAbsent(key, en.getKey());
            // cells with identical probes would hide each other: each cell's points are nudged sideways by its own
            // small
            // share of the load (a few percent at most; the load axis reads the same) and a later twin says whose it
            // repeats
            double nudge = shown > 1 ? 1 + 0.03 * (i - (shown - 1) / 2.0) / Math.max(1, shown - 1) : 1;
            double[] xs = pts.stream().mapToDouble(p -> p[0] * nudge).toArray(),
                    ys = pts.stream().mapToDouble(p -> p[1]).toArray();
            XYSeries s = c.addSeries(same == null ? en.getKey() : en.getKey() + " (= " + same + ")", xs, ys);
            s.setMarker(markers.get(
                    (i + i / ChartStyle.PALETTE.length) % markers.size())); // no two cells share colour and marker
            s.setMarkerColor(ChartStyle.color(i));
            i++;
        }
        if (att && max > 0) {
            double t = 100 * cap.path("target_attainment").asDouble();
            XYSeries s = c.addSeries("target " + Fmt.pct(t / 100), new double[] {min, max}, new double[] {t, t});
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
            s.setMarker(SeriesMarkers.NONE);
            s.setLineColor(ChartStyle.TEXT);
        }
        String caption = att
                ? "Every probe of every replicate is a point: the share of its measured requests that met the SLO at that offered load. "
                        + "The search brackets the load where a cell's points cross the target line, then bisects it; points above the line left of "
                        + "a cell's capacity passed. Each cell's points are shifted sideways by at most 1.5% of the load so that cells with the "
                        + "same probes stay visible; a cell whose probes equal an earlier cell's is labelled (= that cell)."
                        + (log ? " Logarithmic load axis." : "")
                : "Goodput (requests per second meeting every SLO) of every probe against its offered load: it follows the load until the "
                        + "knee, then falls away; a cache that lifts the knee moves the peak right. Points shifted sideways by at most 1.5% per "
                        + "cell; a cell whose probes equal an earlier cell's is labelled (= that cell)."
                        + (log ? " Logarithmic load axis." : "");
        return new Plot(name, title, caption, c);
    }
}
