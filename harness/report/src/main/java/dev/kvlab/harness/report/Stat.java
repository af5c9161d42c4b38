package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One metric of one cell across its replicates, as {@code summary.json} gives it: the mean, and the Student-t
 * 95% interval of the mean ({@code lo}/{@code hi} NaN when there is none, i.e. fewer than two replicates). For a
 * paired difference against the baseline, {@code mean} is the mean difference.
 */
public record Stat(double mean, double stdev, int n, double lo, double hi) {

    /** No value. */
    public static final Stat NONE = new Stat(Double.NaN, Double.NaN, 0, Double.NaN, Double.NaN);

    public boolean hasCi() {
        return Double.isFinite(lo) && Double.isFinite(hi);
    }

    /** Half the interval's width (for symmetric whiskers), 0 when there is no interval. */
    public double halfWidth() {
        return hasCi() ? (hi - lo) / 2 : 0;
    }

    /** True when the interval exists and excludes zero (a difference the replicates support). */
    public boolean excludesZero() {
        return hasCi() && (lo > 0 || hi < 0);
    }

    /** The same with the interval clipped to {@code [min, max]} (for display: a latency is never negative). */
    public Stat clip(double min, double max) {
        if (!hasCi()) return this;
        return new Stat(mean, stdev, n, Math.max(min, lo), Math.min(max, hi));
    }

    /** Reads {@code {"mean"|"mean_diff", "stdev", "n", "ci95": [lo, hi] | null}}; {@link #NONE} for null/missing. */
    static Stat of(JsonNode o) {
        if (o == null || !o.isObject()) return NONE;
        double mean = num(o.has("mean") ? o.get("mean") : o.get("mean_diff"));
        JsonNode ci = o.get("ci95");
        double lo = Double.NaN;
        double hi = Double.NaN;
        if (ci != null && ci.isArray() && ci.size() == 2) {
            lo = num(ci.get(0));
            hi = num(ci.get(1));
        }
        return new Stat(mean, num(o.get("stdev")), o.path("n").asInt(0), lo, hi);
    }

    /** A JSON number, or NaN for null / missing / "NaN" text. */
    static double num(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) return Double.NaN;
        if (n.isNumber()) return n.asDouble();
        if (n.isTextual()) {
            try {
                return Double.parseDouble(n.asText());
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        return Double.NaN;
    }
}
