package dev.kvlab.harness.report;

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
 * The tail over time: p99 per interval of a metric from the interval logs, one line per cell (replicates pooled per
 * interval). Drawn when the run has a {@code fault} factor or live cells: what a failure does to the tail, during
 * and after it.
 */
final class TailOverTime {

    static final int MAX_SERIES = 12;

    private TailOverTime() {}

    /** Whether the run gets this figure, else the reason it does not. */
    static String reasonToSkip(BundleData b) {
        if (b.hasFactor("fault") || b.anyLive()) return null;
        return "Drawn for runs with a fault factor or live cells; this run has neither (sim only, no fault), so its tails are in the tables "
                + "and the per-interval histograms are in the .hlog files.";
    }

    static Plot of(BundleData b, String metric, String display, Map<String, String> notes) {
        List<CellData> cells = new ArrayList<>(b.cells());
        if (cells.size() > MAX_SERIES) cells = cells.subList(0, MAX_SERIES);
        XYChart c = new XYChartBuilder()
                .width(ChartStyle.WIDTH)
                .height(ChartStyle.HEIGHT + 20 * cells.size())
                .title(display + " p99 per interval over the measured phase")
                .xAxisTitle("time since the measured phase began (s)")
                .yAxisTitle(display + " p99 (ms)")
                .build();
        ChartStyle.apply(c.getStyler());
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setMarkerSize(5);
        c.getStyler().setXAxisDecimalPattern("#,##0.#");
        c.getStyler().setYAxisDecimalPattern("#,##0.###");
        c.getStyler().setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Vertical);
        int drawn = 0;
        double interval = Double.NaN;
        Double faultAt = null;
        for (CellData cell : cells) {
            TreeMap<Double, Hlogs.Interval> iv = Hlogs.pooledByStart(cell, metric);
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            for (Hlogs.Interval i : iv.values()) {
                if (i.histogram().getTotalCount() == 0) continue;
                x.add((i.start() + i.end()) / 2);
                y.add(i.histogram().getValueAtPercentile(99) / 1000.0);
                if (Double.isNaN(interval) && i.end() > i.start()) interval = i.end() - i.start();
            }
            if (x.isEmpty()) continue;
            String fault = cell.factors().get("fault");
            String name = cell.id() + (fault != null && !cell.id().contains(fault) ? " (fault " + fault + ")" : "");
            XYSeries s = c.addSeries(name, x, y);
            s.setMarker(SeriesMarkers.CIRCLE);
            s.setLineColor(ChartStyle.color(drawn));
            s.setMarkerColor(ChartStyle.color(drawn));
            drawn++;
            Double at = FaultTime.of(cell);
            if (at != null && fault != null && !"none".equals(fault)) faultAt = at;
        }
        if (drawn == 0) {
            notes.put("tails", "No interval log holds " + display + " values, so there is no time series.");
            return null;
        }
        if (faultAt != null) {
            c.addAnnotation(new AnnotationLine(faultAt, true, false));
            c.addAnnotation(new AnnotationText("fault injected", faultAt, 0, false));
        }
        String caption = "99th percentile of " + display + " in each interval"
                + (Double.isFinite(interval) ? " (" + Fmt.num(interval) + " s)" : "")
                + " of the run's own clock (virtual time in sim cells, wall time in live cells), replicates pooled per interval, from "
                + "cells/<cell>/r<k>/" + metric
                + ".hlog. A point is plotted at the middle of its interval; intervals without values are left out."
                + (faultAt != null ? " The dashed line marks when the fault was injected." : "")
                + (b.cells().size() > MAX_SERIES ? " Only the first " + MAX_SERIES + " cells are drawn." : "");
        return new Plot(metric + "-p99-over-time", display + " tail over time", caption, c);
    }
}
