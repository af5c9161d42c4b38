package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What to do with a prefix the store holds: {@code recompute} it, {@code fetch} all of it, or {@code auto} (fetch while it is cheaper than recomputing, by the roofline and the transport model). */
public enum Policy {
    RECOMPUTE("recompute"),
    FETCH("fetch"),
    AUTO("auto");

    private final String label;

    Policy(String label) {
        this.label = label;
    }

    /** The config spelling. */
    @JsonValue
    public String label() {
        return label;
    }

    @Override
    public String toString() {
        return label;
    }

    /** Case-insensitive; {@code _} may stand for {@code -}. */
    @JsonCreator
    public static Policy parse(String s) {
        String v = s == null ? "" : s.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Policy x : values()) if (x.label.equals(v)) return x;
        List<String> all = new ArrayList<>();
        for (Policy x : values()) all.add(x.label);
        throw new IllegalArgumentException("'" + s + "' is not one of " + String.join(", ", all));
    }
}
