package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Tier contents when measurement starts: {@code cold} (empty) or {@code hot} (filled by an unmeasured warm-up pass of the workload). */
public enum CacheState {
    COLD("cold"),
    HOT("hot");

    private final String label;

    CacheState(String label) {
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
    public static CacheState parse(String s) {
        String v = s == null ? "" : s.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (CacheState x : values()) if (x.label.equals(v)) return x;
        List<String> all = new ArrayList<>();
        for (CacheState x : values()) all.add(x.label);
        throw new IllegalArgumentException("'" + s + "' is not one of " + String.join(", ", all));
    }
}
