package dev.kvlab.transport.api;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;

/**
 * Parses durations: {@code 250ns}, {@code 20us}, {@code 500ms}, {@code 4s}, {@code 1.5s}, {@code 2m},
 * {@code 1h}. A unit is required; negative durations are rejected.
 */
public final class DurationSpec {

    private DurationSpec() {}

    /** The shortest exact form, parseable by {@link #parse}: {@code 4s}, {@code 1500ms}, {@code 2m}, {@code 250ns}. */
    public static String format(Duration d) {
        if (d.isNegative()) throw new IllegalArgumentException("negative duration: " + d);
        long n = d.toNanos();
        if (n == 0) return "0s";
        long[] per = {3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L, 1L};
        String[] unit = {"h", "m", "s", "ms", "us", "ns"};
        for (int i = 0; i < per.length; i++) if (n % per[i] == 0) return (n / per[i]) + unit[i];
        return n + "ns";
    }

    public static Duration parse(String text) {
        if (text == null) throw new IllegalArgumentException("duration is missing");
        String s = text.strip();
        int i = 0;
        while (i < s.length() && (isAsciiDigit(s.charAt(i)) || s.charAt(i) == '.')) i++;
        String num = s.substring(0, i);
        String unit = s.substring(i).strip().toLowerCase(Locale.ROOT);
        if (num.isEmpty())
            throw new IllegalArgumentException(
                    "not a duration: '" + ByteSize.quote(text) + "' (expected e.g. 500ms, 4s, 2m)");
        long nanosPerUnit = switch (unit) {
            case "ns" -> 1L;
            case "us", "µs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m", "min" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            case "" ->
                throw new IllegalArgumentException(
                        "duration '" + ByteSize.quote(text) + "' needs a unit (ns, us, ms, s, m, h)");
            default ->
                throw new IllegalArgumentException("unknown duration unit '" + ByteSize.quote(unit) + "' in '"
                        + ByteSize.quote(text) + "' (use ns, us, ms, s, m, h)");
        };
        try {
            BigDecimal nanos = new BigDecimal(num)
                    .multiply(BigDecimal.valueOf(nanosPerUnit))
                    .setScale(0, RoundingMode.HALF_UP);
            return Duration.ofNanos(nanos.longValueExact());
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("not a duration: '" + ByteSize.quote(text) + "'");
        }
    }

    private static boolean isAsciiDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
