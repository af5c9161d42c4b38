package dev.kvlab.harness.api;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The summary of one cell run: one row of {@code summary.csv} without the matrix runner's {@code cell} and
 * {@code replicate} columns, a value for every column of {@link Columns#SUMMARY}, in that order. Read a figure with
 * {@link #get(Column)} ({@code s.get(Columns.GOODPUT_RPS)}); build one with {@link #builder(Map)}. Percentiles are
 * HdrHistogram's, in milliseconds; NaN when the metric has no values (e.g. fetch latency in a run that fetched nothing).
 *
 * @param percentilesMs p50, p99 and mean (ms) of every metric's whole-run histogram; the latency columns are read off it
 * @param values        column → value, in {@link Columns#SUMMARY} order
 */
public record CellSummary(Map<Metric, double[]> percentilesMs, Map<Column<?>, Object> values) {

    public CellSummary {
        percentilesMs = Collections.unmodifiableMap(new EnumMap<>(percentilesMs));
        Map<Column<?>, Object> v = new LinkedHashMap<>();
        for (Column<?> c : Columns.SUMMARY) {
            if (!values.containsKey(c)) throw new IllegalArgumentException("summary without column " + c.name());
            v.put(c, c.cast(values.get(c)));
        }
        for (Column<?> c : values.keySet())
            if (!v.containsKey(c))
                throw new IllegalArgumentException(c.name() + " is not a summary column (Columns.SUMMARY)");
        values = Collections.unmodifiableMap(v);
    }

    /** A summary with {@code percentilesMs}; the latency columns are filled from it, the others put one by one. */
    public static Builder builder(Map<Metric, double[]> percentilesMs) {
        return new Builder(percentilesMs);
    }

    /** The value of {@code c}, a {@link Columns#SUMMARY} column. */
    public <T> T get(Column<T> c) {
        if (!values.containsKey(c))
            throw new IllegalArgumentException(c.name() + " is not a summary column (Columns.SUMMARY)");
        return c.type().cast(values.get(c));
    }

    /** The p50 (index 0) of {@code m} in ms. */
    public double p50Ms(Metric m) {
        return percentilesMs.get(m)[0];
    }

    /** The p99 (index 1) of {@code m} in ms. */
    public double p99Ms(Metric m) {
        return percentilesMs.get(m)[1];
    }

    /** The mean of {@code m} in ms (index 2, HdrHistogram's mean; NaN when absent); the Mooncake paper reports means. */
    public double meanMs(Metric m) {
        double[] p = percentilesMs.get(m);
        return p.length > 2 ? p[2] : Double.NaN;
    }

    /** The same summary with {@code c} set to {@code v} (the CLI counts wall time from config load). */
    public <T> CellSummary with(Column<T> c, T v) {
        Map<Column<?>, Object> m = new LinkedHashMap<>(values);
        m.put(c, v);
        return new CellSummary(percentilesMs, m);
    }

    /** The summary as a row, in {@code summary.csv} order ({@link Columns#SUMMARY}). */
    public SummaryRow columns() {
        SummaryRow.Builder b = SummaryRow.builder();
        values.forEach((k, v) -> b.put(k.name(), v));
        return b.build();
    }

    /** Puts a summary's columns one by one; {@link #build()} refuses a summary that misses one. */
    public static final class Builder {
        private final Map<Metric, double[]> percentilesMs;
        private final Map<Column<?>, Object> values = new LinkedHashMap<>();

        private Builder(Map<Metric, double[]> percentilesMs) {
            this.percentilesMs = percentilesMs;
            for (Column<?> c : Columns.SUMMARY) {
                Column.Latency l = c.latency();
                if (l == null) continue;
                double[] p = percentilesMs.get(l.metric());
                int i = l.stat().ordinal(); // p50, p99, mean
                values.put(c, p.length > i ? p[i] : Double.NaN);
            }
        }

        public <T> Builder put(Column<T> c, T v) {
            values.put(c, c.cast(v));
            return this;
        }

        public CellSummary build() {
            return new CellSummary(percentilesMs, values);
        }
    }
}
