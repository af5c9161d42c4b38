package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Tier contents when measurement starts: {@code cold} (empty) or {@code hot} (filled by an unmeasured warm-up pass of the workload). */
public enum CacheState {
    COLD,
    HOT;

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
    public static CacheState parse(String s) {
        return ConfigEnums.parse(CacheState.class, s);
    }
}
