package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** How requests pick an instance: {@code round-robin}, {@code least-loaded} (fewest outstanding tokens), {@code cache-aware} (longest local prefix hit, then least loaded). */
public enum RouterKind {
    ROUND_ROBIN,
    LEAST_LOADED,
    CACHE_AWARE;

    /** The config spelling. */
    @JsonValue
    public String label() {
        return ConfigEnums.label(this);
    }

    @Override
    public String toString() {
        return label();
    }

    /** Case-insensitive; {@code _} may stand for {@code -}. */
    @JsonCreator
    public static RouterKind parse(String s) {
        return ConfigEnums.parse(RouterKind.class, s);
    }
}
