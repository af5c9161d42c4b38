package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Prefill/decode placement: {@code colocated} (each instance does both) or {@code disaggregated} (prefill instances hand KV to decode instances over the transport). */
public enum Pd {
    COLOCATED("colocated"),
    DISAGGREGATED("disaggregated");

    private final String label;

    Pd(String label) {
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
    public static Pd parse(String s) {
        String v = s == null ? "" : s.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Pd x : values()) if (x.label.equals(v)) return x;
        List<String> all = new ArrayList<>();
        for (Pd x : values()) all.add(x.label);
        throw new IllegalArgumentException("'" + s + "' is not one of " + String.join(", ", all));
    }
}
