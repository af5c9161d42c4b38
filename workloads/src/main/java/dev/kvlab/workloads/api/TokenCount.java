package dev.kvlab.workloads.api;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * A KV capacity given in tokens: {@code 3Mtok}, {@code 50Mtok}, {@code 512tok}, {@code 1.5Ktok}, {@code 2Gtok}
 * (also {@code tokens} for {@code tok}). Multipliers are decimal, as the Mooncake paper counts ("3M tokens" is
 * 3,000,000); the unit is case-insensitive and the result must be a whole number of tokens. How many bytes or blocks
 * that is depends on the model and the block size, so the caller converts.
 */
public final class TokenCount {

    private TokenCount() {}

    /** True when {@code text} is written in tokens (ends in {@code tok} or {@code tokens}), whether or not it is valid. */
    public static boolean isTokens(String text) {
        if (text == null) return false;
        String s = text.strip().toLowerCase(Locale.ROOT);
        return s.endsWith("tok") || s.endsWith("tokens");
    }

    /** Parses {@code text} ({@link #isTokens} must hold); {@link IllegalArgumentException} with a one-line reason otherwise. */
    public static long parse(String text) {
        if (!isTokens(text))
            throw new IllegalArgumentException(
                    "not a token count: '" + text + "' (expected e.g. 3Mtok, 50Mtok, 4096tok)");
        String s = text.strip().toLowerCase(Locale.ROOT);
        s = s.substring(0, s.length() - (s.endsWith("tokens") ? 6 : 3)).strip();
        long mult = 1;
        if (!s.isEmpty()) {
            char u = s.charAt(s.length() - 1);
            long m = switch (u) {
                case 'k' -> 1_000L;
                case 'm' -> 1_000_000L;
                case 'g' -> 1_000_000_000L;
                default -> 0;
            };
            if (m > 0) {
                mult = m;
                s = s.substring(0, s.length() - 1).strip();
            }
        }
        BigDecimal v;
        try {
            v = new BigDecimal(s).multiply(BigDecimal.valueOf(mult));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "not a token count: '" + text + "' (expected e.g. 3Mtok, 50Mtok, 4096tok)");
        }
        if (v.signum() < 0) throw new IllegalArgumentException("token count '" + text + "' must be >= 0");
        try {
            return v.longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(
                    "token count '" + text + "' is not a whole number of tokens or is too large");
        }
    }
}
