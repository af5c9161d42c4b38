package dev.kvlab.workloads.api;

import java.math.BigDecimal;

/**
 * The capacity of one LRU cache of a trace analysis: a {@link Fraction} of the trace's distinct blocks
 * ({@code 1%}, {@code 0.01}) or a number of {@link Tokens} ({@code 3Mtok}), which holds
 * {@code floor(tokens / block_tokens)} blocks.
 */
public sealed interface LruCapacity {

    /** {@code floor(fraction * distinct)} blocks. */
    record Fraction(double fraction) implements LruCapacity {
        public Fraction {
            if (!(fraction >= 0) || Double.isInfinite(fraction))
                throw new IllegalArgumentException("capacity fraction must be >= 0, got " + fraction);
        }
    }

    /** {@code floor(tokens / blockTokens)} blocks. */
    record Tokens(long tokens) implements LruCapacity {
        public Tokens {
            if (tokens < 0) throw new IllegalArgumentException("capacity tokens must be >= 0, got " + tokens);
        }
    }

    /**
     * {@code 3Mtok} (tokens, see {@link TokenCount}), {@code 1%} or {@code 0.01} (a fraction in [0, 1]; percentages are
     * converted exactly); {@link IllegalArgumentException} naming the text otherwise.
     */
    static LruCapacity parse(String text) {
        String s = text == null ? "" : text.strip();
        if (TokenCount.isTokens(s)) return new Tokens(TokenCount.parse(s));
        boolean percent = s.endsWith("%");
        if (percent) s = s.substring(0, s.length() - 1).strip();
        BigDecimal d;
        try {
            d = new BigDecimal(s);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is not a capacity (use e.g. 1%, 0.01 or 3Mtok)");
        }
        if (percent) d = d.movePointLeft(2);
        if (d.signum() < 0 || d.compareTo(BigDecimal.ONE) > 0)
            throw new IllegalArgumentException(
                    "capacity '" + text + "' must be between 0% and 100% (or tokens, e.g. 3Mtok)");
        return new Fraction(d.doubleValue());
    }
}
