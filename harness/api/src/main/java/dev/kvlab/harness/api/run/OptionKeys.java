package dev.kvlab.harness.api.run;

import dev.kvlab.harness.api.config.RouterKind;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.input.BadInputException;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Keys that only some settings of other keys read (beyond {@link ClockKeys}' per-clock split): given with a value
 * other than the default where nothing reads them, they are refused before anything runs, naming the key and what
 * would read it, instead of being silently ignored.
 */
final class OptionKeys {

    private OptionKeys() {}

    /** Refuses the first key {@code given} that {@code c}'s other settings leave unread. */
    public static void refuseUnread(RunConfig c, Predicate<String> given, Function<String, String> origin) {
        if (c.cluster().router() != RouterKind.CACHE_AWARE && given.test("cluster.cache_aware"))
            throw refuse(
                    "cluster.cache_aware",
                    origin,
                    "is read only by the cache-aware router; cluster.router is "
                            + c.cluster().router());
    }

    private static BadInputException refuse(String key, Function<String, String> origin, String why) {
        String o = origin.apply(key);
        return new BadInputException((o == null ? "config" : o) + ": key '" + key + "' " + why
                + ": remove it, or set it only for cells that read it");
    }
}
