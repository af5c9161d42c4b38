package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The hit ratio over time in a fault run: per time bin of arrivals, the share of prompt tokens the tiers served
 * (local + remote hits / prompt tokens, from {@code requests.csv}), one line per cell. The fault's strike and, for a
 * master failover, the moment another master served ({@code fault_at_s + failover_s} in {@code cell.json}) are marked:
 * what the failover cost the cache, and when it came back.
 */
final class HitsOverTime {

    private HitsOverTime() {}

    static Plot of(BundleData b, Map<String, String> notes) {
        if (!b.hasFactor("fault")) return null;
        List<CellData> cells = new ArrayList<>(b.cells());
        if (cells.size() > TailOverTime.MAX_SERIES) cells = cells.subList(0, TailOverTime.MAX_SERIES);
        double span = 0;
        for (CellData c : cells)
            span = Math.max(span, c.metric("simulated_seconds").mean());
        if (!(span > 0)) return null;
        double bin = Math.max(0.25, span / 40);
        XYChart c = new XYChartBuilder()
                .width(ChartStyle.WIDTH)
                .height(ChartStyle.HEIGHT + 20 * cells.size())
                .title("hit ratio over the measured phase")
                .xAxisTitle("arrival, seconds since the measured phase began")
                .yAxisTitle("prompt tokens served by the tiers")
                .build();
        ChartStyle.apply(c.getStyler());
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setYAxisMax(1.0);
        c.getStyler().setMarkerSize(5);
        c.getStyler().setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Vertical);
        int drawn = 0;
        Double strike = null, served = null;
        for (CellData cell : cells) {
            TreeMap<Long, double[]> bins = new TreeMap<>(); // bin -> [hit tokens, prompt tokens]
            for (Path d : cell.replicateDirs())
                RequestsCsv.forEach(
                        d, List.of("arrival_ms", "input_tokens", "local_hit_tokens", "remote_hit_tokens"), row -> {
                            if (!(row[1] > 0) || !Double.isFinite(row[0])) return;
                            double[] acc =
                                    bins.computeIfAbsent((long) Math.floor(row[0] / 1000 / bin), k -> new double[2]);
                            acc[0] += (Double.isFinite(row[2]) ? row[2] : 0) + (Double.isFinite(row[3]) ? row[3] : 0);
                            acc[1] += row[1];
                        });
            if (bins.isEmpty()) continue;
            List<Double> x = new ArrayList<>(), y = new ArrayList<>();
            bins.forEach((k, v) -> {
                x.add((k + 0.5) * bin);
                y.add(v[0] / v[1]);
            });
            String fault = cell.factors().get("fault");
            XYSeries s = c.addSeries(
                    cell.id() + (fault != null && !cell.id().contains(fault) ? " (fault " + fault + ")" : ""), x, y);
            s.setMarker(SeriesMarkers.CIRCLE);
            s.setLineColor(ChartStyle.color(drawn));
            s.setMarkerColor(ChartStyle.color(drawn));
            drawn++;
            if (fault != null && !"none".equals(fault)) {
                JsonNode sum = FaultTime.summary(cell); // read once: a probe's record is a line of its run.hlog
                Double at = FaultTime.of(sum);
                if (at != null) {
                    strike = at;
                    if (sum.path("failover_s").isNumber())
                        served = strike + sum.path("failover_s").asDouble();
                }
            }
        }
        if (drawn == 0) {
            notes.put(
                    "hits-over-time",
                    "No requests.csv holds arrivals with prompt tokens, so there is no hit ratio over time.");
            return null;
        }
        if (strike != null) {
            c.addAnnotation(new AnnotationLine(strike, true, false));
            c.addAnnotation(new AnnotationText("fault", strike, 0.95, false));
        }
        if (served != null) {
            c.addAnnotation(new AnnotationLine(served, true, false));
            c.addAnnotation(new AnnotationText("new leader serves", served, 0.88, false));
        }
        String caption = "Share of prompt tokens served by the local and remote tiers, per " + Fmt.num(bin)
                + " s of arrivals (replicates pooled), from "
                + "cells/<cell>/r<k>/requests.csv. "
                + (strike != null ? "The first dashed line marks the fault's strike (fault_at_s)" : "")
                + (served != null
                        ? "; the second, when another master served (fault_at_s + failover_s): between them the store's lookups found no "
                                + "master and every block was recomputed"
                        : "")
                + (strike != null ? "." : "") + " Only the first " + TailOverTime.MAX_SERIES
                + " cells are drawn; with the TTFT tail over time below, what a fault did to the cache and to the latency.";
        return new Plot("hits-over-time", "Hit ratio over time", caption, c);
    }
}
