package dev.kvlab.transport.api;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * Parses and prints byte sizes: {@code 512}, {@code 512B}, {@code 64KiB}, {@code 1MiB}, {@code 1.5GiB},
 * {@code 2TiB} (binary), {@code 10KB}, {@code 1MB}, {@code 1GB}, {@code 1TB} (decimal). Units are
 * case-insensitive; the result must be a whole number of bytes that fits a {@code long}.
 */
public final class ByteSize {

    private ByteSize() {}

    /** Parses {@code text}; {@link IllegalArgumentException} with a one-line reason otherwise. */
    public static long parse(String text) {
        if (text == null) throw new IllegalArgumentException("size is missing");
        String s = text.strip();
        int i = 0;
        while (i < s.length() && (isAsciiDigit(s.charAt(i)) || s.charAt(i) == '.')) i++;
        String num = s.substring(0, i);
        String unit = s.substring(i).strip().toLowerCase(Locale.ROOT);
        if (num.isEmpty())
            throw new IllegalArgumentException("not a size: '" + quote(text) + "' (expected e.g. 64KiB, 1MiB, 2GiB)");
        long mult = switch (unit) {
            case "", "b" -> 1L;
            case "kib", "k" -> 1L << 10;
            case "mib", "m" -> 1L << 20;
            case "gib", "g" -> 1L << 30;
            case "tib", "t" -> 1L << 40;
            case "kb" -> 1_000L;
            case "mb" -> 1_000_000L;
            case "gb" -> 1_000_000_000L;
            case "tb" -> 1_000_000_000_000L;
            default ->
                throw new IllegalArgumentException(
                        "unknown size unit '" + quote(s.substring(i).strip()) + "' in '" + quote(text)
                                + "' (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)");
        };
        BigDecimal value;
        try {
            value = new BigDecimal(num).multiply(BigDecimal.valueOf(mult));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a size: '" + quote(text) + "'");
        }
        try {
            return value.longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(
                    "size '" + quote(text) + "' is not a whole number of bytes or is too large");
        }
    }

    /** A short human form: the largest binary unit that divides exactly, else two decimals ("1MiB", "1.50GiB", "123B"). */
    public static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        long v = bytes;
        while (u < units.length - 1 && v != 0 && v % 1024 == 0) {
            v /= 1024;
            u++;
        }
        if (v < 10 * 1024 || u == units.length - 1) return v + units[u];
        double d = bytes;
        u = 0;
        while (u < units.length - 1 && Math.abs(d) >= 1024) {
            d /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.2f%s", d, units[u]);
    }

    private static boolean isAsciiDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** The input as it may appear in a one-line message: control characters escaped, at most 60 characters. */
    static String quote(String text) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < text.length() && b.length() < 60; i++) {
            char c = text.charAt(i);
            if (c < 0x20
                    || c == 0x7f
                    || Character.isISOControl(c)
                    || Character.getType(c) == Character.LINE_SEPARATOR
                    || Character.getType(c) == Character.PARAGRAPH_SEPARATOR)
                b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.length() >= 60 ? b + "..." : b.toString();
    }
}
