package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** What to do with a prefix the store holds: {@code recompute} it, {@code fetch} all of it, or {@code auto} (fetch while it is cheaper than recomputing, by the roofline and the transport model). */
public enum Policy {
    RECOMPUTE,
    FETCH,
    AUTO;

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
    public static Policy parse(String s) {
        return ConfigEnums.parse(Policy.class, s);
    }
}
