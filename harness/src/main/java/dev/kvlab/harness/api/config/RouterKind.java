package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** How requests pick an instance: {@code round-robin}, {@code least-loaded} (fewest outstanding tokens), {@code cache-aware} (longest local prefix hit, then least loaded). */
public enum RouterKind {
    ROUND_ROBIN("round-robin"),
    LEAST_LOADED("least-loaded"),
    CACHE_AWARE("cache-aware");

    private final String label;

    RouterKind(String label) {
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
    public static RouterKind parse(String s) {
        String v = s == null ? "" : s.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (RouterKind x : values()) if (x.label.equals(v)) return x;
        List<String> all = new ArrayList<>();
        for (RouterKind x : values()) all.add(x.label);
        throw new IllegalArgumentException("'" + s + "' is not one of " + String.join(", ", all));
    }
}
