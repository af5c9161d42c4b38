package dev.kvlab.harness.fixed.internal;

import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.transport.api.DurationSpec;
import java.time.Duration;
import java.util.function.Function;

/**
 * The {@code fixed} target's block of a run config; a key not listed here is refused (exit 2) naming it.
 *
 * @param kind   {@code fixed}
 * @param delay  how long after a request arrives its answer comes (a duration: {@code 50ms}, {@code 1s}); required
 * @param tokens output tokens of every answer, whatever the workload asks (at least 1); required
 */
public record FixedTargetConfig(String kind, String delay, Integer tokens) {

    /** The block checked: the delay in nanoseconds and the tokens. */
    public record Resolved(long delayNanos, int tokens) {}

    /** Checks the block; {@link BadInputException} naming {@code origin.apply(key)} and the key. */
    public Resolved resolve(Function<String, String> origin) {
        if (delay == null) throw bad(origin, "target.delay", "give the answer's delay (a duration such as 50ms)");
        Duration d;
        try {
            d = DurationSpec.parse(delay);
        } catch (IllegalArgumentException e) {
            throw bad(origin, "target.delay", e.getMessage());
        }
        if (d.isNegative() || d.compareTo(Duration.ofHours(1)) > 0)
            throw bad(origin, "target.delay", "must be within 0s-1h, got " + delay);
        if (tokens == null) throw bad(origin, "target.tokens", "give the tokens of every answer (at least 1)");
        if (tokens < 1 || tokens > 1_000_000) throw bad(origin, "target.tokens", "must be in 1-1000000, got " + tokens);
        return new Resolved(d.toNanos(), tokens);
    }

    private static BadInputException bad(Function<String, String> origin, String key, String why) {
        String o = origin.apply(key);
        if (o == null) o = origin.apply("target");
        return new BadInputException((o == null ? "config" : o) + ": key '" + key + "': " + why);
    }
}
