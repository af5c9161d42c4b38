package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;

/** What to do with a prefix the store holds: {@code recompute} it, {@code fetch} all of it, or {@code auto} (fetch while it is cheaper than recomputing, by the roofline and the transport model). */
public enum Policy implements ConfigEnum {
    RECOMPUTE,
    FETCH,
    AUTO;

    @Override
    public String toString() {
        return label();
    }

    /** Case-insensitive; {@code _} may stand for {@code -}. */
    @JsonCreator
    public static Policy parse(String s) {
        return ConfigEnum.parse(Policy.class, s);
    }
}
