package dev.kvlab.harness.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.util.Locale;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;

/**
 * The report's one chart look: fixed logical fonts and sizes (so the same bundle renders the same images),
 * white background, light grid, a colour-blind-safe palette (Okabe–Ito), legend below the plot.
 */
final class ChartStyle {

    static final int WIDTH = 1100;
    static final int HEIGHT = 440;

    /** Okabe–Ito: blue, vermillion, bluish green, orange, reddish purple, sky blue, yellow, black, then greys. */
    static final Color[] PALETTE = {
        new Color(0, 114, 178), new Color(213, 94, 0), new Color(0, 158, 115), new Color(230, 159, 0),
        new Color(204, 121, 167), new Color(86, 180, 233), new Color(240, 228, 66), new Color(0, 0, 0),
        new Color(120, 120, 120), new Color(170, 170, 170)
    };

    static final Color GRID = new Color(225, 225, 225);
    static final Color TEXT = new Color(34, 34, 34);
    static final String FONT = Font.SANS_SERIF;

    private ChartStyle() {}

    /**
     * A logarithmic x axis over {@code [min, max]}: every 1..9 × 10^k tick labelled when the range spans at most
     * two decades (labels still fit), decades only beyond that.
     */
    static void logX(AxesChartStyler s, double min, double max) {
        s.setXAxisLogarithmic(true);
        s.setXAxisLogarithmicDecadeOnly(max / min > 100);
    }

    static Color color(int i) {
        return PALETTE[Math.floorMod(i, PALETTE.length)];
    }

    static void apply(AxesChartStyler s) {
        s.setBaseFont(new Font(FONT, Font.PLAIN, 13));
        s.setChartTitleFont(new Font(FONT, Font.BOLD, 15));
        s.setAxisTitleFont(new Font(FONT, Font.PLAIN, 13));
        s.setAxisTickLabelsFont(new Font(FONT, Font.PLAIN, 12));
        s.setLegendFont(new Font(FONT, Font.PLAIN, 12));
        s.setAnnotationTextFont(new Font(FONT, Font.PLAIN, 12));
        s.setAnnotationTextFontColor(TEXT);
        s.setAnnotationLineColor(new Color(90, 90, 90));
        s.setAnnotationLineStroke(
                new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {4f, 4f}, 0f));
        s.setChartFontColor(TEXT);
        s.setChartBackgroundColor(Color.WHITE);
        s.setPlotBackgroundColor(Color.WHITE);
        s.setPlotBorderVisible(true);
        s.setPlotBorderColor(new Color(180, 180, 180));
        s.setPlotGridLinesColor(GRID);
        s.setPlotGridLinesStroke(new BasicStroke(1f));
        s.setChartTitleBoxVisible(false);
        s.setLegendBorderColor(Color.WHITE);
        s.setLegendBackgroundColor(Color.WHITE);
        s.setLegendPosition(Styler.LegendPosition.OutsideS);
        s.setLegendLayout(Styler.LegendLayout.Horizontal);
        s.setSeriesColors(PALETTE);
        s.setChartPadding(12);
        s.setLocale(Locale.ROOT);
        s.setAntiAlias(true);
        s.setToolTipsEnabled(false);
        s.setAxisTitlePadding(8);
    }
}
