package dev.kvlab.harness.api.config;

import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.transport.api.DurationSpec;
import dev.kvlab.workloads.api.TokenCount;
import java.time.Duration;
import java.util.function.Function;

/**
 * The checks the config records run on their own values ({@code ClusterConfig.check}, {@code StoreConfig.check}, ...):
 * each failure is a {@link BadInputException} naming where the value came from ({@code FILE:LINE}, {@code --set k=v},
 * or {@code config} when unknown) and its dotted key.
 */
public final class ConfigCheck {

    private final Function<String, String> origin;

    /** {@code origin} maps a dotted key to where its value came from, or null. */
    public ConfigCheck(Function<String, String> origin) {
        this.origin = origin;
    }

    /** Where the value of dotted {@code key} came from, or null. */
    public Function<String, String> origin() {
        return origin;
    }

    /** {@code ORIGIN: key 'KEY': REASON}. */
    public BadInputException bad(String key, String reason) {
        String o = origin.apply(key);
        return new BadInputException((o == null ? "config" : o) + ": key '" + key + "': " + reason);
    }

    /** {@code v}, refused when null. */
    public <T> T need(String key, T v) {
        if (v == null) throw bad(key, "must be given");
        return v;
    }

    /** A byte size ({@code 2GiB}) in bytes, {@code > 0} (or {@code >= 0} when {@code zeroOk}). */
    public long size(String key, String v, boolean zeroOk) {
        need(key, v);
        long n;
        try {
            n = ByteSize.parse(v);
        } catch (IllegalArgumentException e) {
            throw bad(key, e.getMessage());
        }
        if (n < 0 || (!zeroOk && n == 0)) throw bad(key, "must be " + (zeroOk ? ">= 0" : "> 0") + ", got " + v);
        return n;
    }

    /**
     * A KV capacity: a byte size ({@code 2TiB}) or tokens ({@code 3Mtok}, see {@link TokenCount}), which is
     * {@code tokens * bytesPerToken} bytes of this run's model.
     */
    public long kvSize(String key, String v, long bytesPerToken, boolean zeroOk) {
        need(key, v);
        if (!TokenCount.isTokens(v)) return size(key, v, zeroOk);
        long tokens;
        try {
            tokens = TokenCount.parse(v);
        } catch (IllegalArgumentException e) {
            throw bad(key, e.getMessage());
        }
        if (!zeroOk && tokens == 0) throw bad(key, "must be > 0, got " + v);
        try {
            return Math.multiplyExact(tokens, bytesPerToken);
        } catch (ArithmeticException e) {
            throw bad(key, v + " of " + bytesPerToken + "-byte tokens is too large");
        }
    }

    /** A duration ({@code 10s}, {@code 100us}) in nanoseconds, {@code > 0} (or {@code >= 0} when {@code zeroOk}). */
    public long nanos(String key, String v, boolean zeroOk) {
        need(key, v);
        Duration d;
        try {
            d = DurationSpec.parse(v);
        } catch (IllegalArgumentException e) {
            throw bad(key, e.getMessage());
        }
        if (!zeroOk && d.isZero()) throw bad(key, "must be > 0");
        return d.toNanos();
    }

    /** Null, or in (0, 1]. */
    public void fraction(String key, Double v) {
        if (v != null && !(v > 0 && v <= 1)) throw bad(key, "must be in (0, 1], got " + v);
    }

    /** At least {@code min}. */
    public void atLeast(String key, long v, long min) {
        if (v < min) throw bad(key, "must be >= " + min + ", got " + v);
    }

    /** At most {@code max}, refused as {@code "must be <= MAX, got V"}. */
    public void atMost(String key, long v, long max) {
        if (v > max) throw bad(key, "must be <= " + max + ", got " + v);
    }
}
