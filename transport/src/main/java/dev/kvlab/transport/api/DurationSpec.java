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

    public static Duration parse(String text) {
        if (text == null) throw new IllegalArgumentException("duration is missing");
        String s = text.strip();
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) i++;
        String num = s.substring(0, i);
        String unit = s.substring(i).strip().toLowerCase(Locale.ROOT);
        if (num.isEmpty()) throw new IllegalArgumentException("not a duration: '" + text + "' (expected e.g. 500ms, 4s, 2m)");
        long nanosPerUnit = switch (unit) {
            case "ns" -> 1L;
            case "us", "µs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m", "min" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            case "" -> throw new IllegalArgumentException("duration '" + text + "' needs a unit (ns, us, ms, s, m, h)");
            default -> throw new IllegalArgumentException("unknown duration unit '" + unit + "' in '" + text + "' (use ns, us, ms, s, m, h)");
        };
        try {
            BigDecimal nanos = new BigDecimal(num).multiply(BigDecimal.valueOf(nanosPerUnit)).setScale(0, RoundingMode.HALF_UP);
            return Duration.ofNanos(nanos.longValueExact());
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("not a duration: '" + text + "'");
        }
    }
}
