package dev.kvlab.harness.metrics;

import dev.kvlab.harness.api.SummaryRow;
import java.util.concurrent.TimeUnit;
import org.influxdb.dto.Point;

/**
 * The final result of one cell × replicate as ONE InfluxDB point in measurement {@value #MEASUREMENT}: the
 * cell's tags ({@link CellTags}) and, as fields, the columns of its {@code summary.csv} row under their column
 * names, with the numbers exactly as in the row (integers as integers, doubles as doubles; NaN, which InfluxDB
 * cannot store, is left out) and text columns as string fields. Timestamped with the wall clock at the cell's end.
 */
public final class SummaryPoint {

    /** The measurement the summary points go to. */
    public static final String MEASUREMENT = "kvlab_summary";

    private SummaryPoint() {}

    /**
     * @param tags    the cell's tags
     * @param row     the summary row's columns to write as fields (numbers and strings)
     * @param wallMs  wall-clock time of the point (ms since the epoch)
     */
    public static Point of(CellTags tags, SummaryRow row, long wallMs) {
        Point.Builder b = Point.measurement(MEASUREMENT)
                .time(wallMs, TimeUnit.MILLISECONDS)
                .tag(tags.tags());
        row.forEach((k, v) -> {
            switch (v) {
                case null -> {}
                case Double d -> {
                    if (Double.isFinite(d)) b.addField(k, d);
                }
                case Float f -> {
                    if (Float.isFinite(f)) b.addField(k, f.doubleValue());
                }
                case Long l -> b.addField(k, l);
                case Integer i -> b.addField(k, i.longValue());
                case Short s -> b.addField(k, s.longValue());
                case Boolean bo -> b.addField(k, bo);
                case Number n -> b.addField(k, n.doubleValue());
                default -> b.addField(k, v.toString());
            }
        });
        return b.build();
    }
}
