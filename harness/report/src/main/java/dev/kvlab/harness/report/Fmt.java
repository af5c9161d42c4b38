package dev.kvlab.harness.report;

import dev.kvlab.transport.api.ByteSize;
import java.util.Locale;

/** Number formats of the report's tables: fixed locale, precision by magnitude, NaN as an en dash. */
final class Fmt {

    static final String NONE = "–";

    private Fmt() {}

    /** About three significant digits, thousands separated. */
    static String num(double v) {
        if (!Double.isFinite(v)) return NONE;
        double a = Math.abs(v);
        if (a == 0) return "0";
        if (a >= 1000) return String.format(Locale.ROOT, "%,.0f", v);
        if (a >= 100) return String.format(Locale.ROOT, "%.1f", v);
        if (a >= 10) return String.format(Locale.ROOT, "%.2f", v);
        if (a >= 1) return String.format(Locale.ROOT, "%.3f", v);
        if (a >= 0.001) return String.format(Locale.ROOT, "%.4f", v);
        return String.format(Locale.ROOT, "%.2e", v);
    }

    static String signed(double v) {
        if (!Double.isFinite(v)) return NONE;
        return (v > 0 ? "+" : "") + num(v);
    }

    static String pct(double ratio) {
        if (!Double.isFinite(ratio)) return NONE;
        return String.format(Locale.ROOT, "%.1f%%", ratio * 100);
    }

    static String count(double v) {
        if (!Double.isFinite(v)) return NONE;
        return String.format(Locale.ROOT, "%,d", Math.round(v));
    }

    static String bytes(double v) {
        if (!Double.isFinite(v)) return NONE;
        return ByteSize.format(Math.round(v));
    }

    /** {@code [lo, hi]} or "" without an interval. */
    static String ci(Stat s) {
        return s.hasCi() ? "[" + num(s.lo()) + ", " + num(s.hi()) + "]" : "";
    }

    static String ciPct(Stat s) {
        return s.hasCi() ? "[" + pct(s.lo()) + ", " + pct(s.hi()) + "]" : "";
    }
}
