package dev.kvlab.harness.report;

import java.util.List;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;

/** Category-axis labels for cells: the cell ids, rotated when they would not fit side by side. */
final class Labels {

    private Labels() {}

    static List<String> of(List<CellData> cells) {
        return cells.stream().map(CellData::label).toList();
    }

    static void style(Chart<? extends AxesChartStyler, ?> chart, List<CellData> cells) {
        style(chart, cells, ChartStyle.WIDTH);
    }

    static void style(Chart<? extends AxesChartStyler, ?> chart, List<CellData> cells, int width) {
        int longest = cells.stream().mapToInt(c -> c.label().length()).max().orElse(0);
        int perCell = cells.isEmpty() ? width : (width - 120) / cells.size();
        // ~7 px per character at 12 px
        if (longest * 7 > perCell) chart.getStyler().setXAxisLabelRotation(cells.size() > 12 ? 90 : 30);
    }
}
