package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;

/** Tier contents when measurement starts: {@code cold} (empty) or {@code hot} (filled by an unmeasured warm-up pass of the workload). */
public enum CacheState implements ConfigEnum {
    COLD,
    HOT;

    @Override
    public String toString() {
        return label();
    }

    /** Case-insensitive; {@code _} may stand for {@code -}. */
    @JsonCreator
    public static CacheState parse(String s) {
        return ConfigEnum.parse(CacheState.class, s);
    }
}
