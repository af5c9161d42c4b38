package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Which KV tiers serve prefix hits: {@code none}, {@code local-only} (per-instance HBM/DRAM prefix cache), {@code remote-only} (the shared store), {@code combined}. */
public enum Tiers {
    NONE("none"),
    LOCAL_ONLY("local-only"),
    REMOTE_ONLY("remote-only"),
    COMBINED("combined");

    private final String label;

    Tiers(String label) {
        this.label = label;
    }

    /** The config spelling. */
    @JsonValue
    public String label() {
        return label;
    }

    /** True when the per-instance prefix cache serves hits. */
    public boolean local() {
        return this == LOCAL_ONLY || this == COMBINED;
    }

    /** True when the shared store serves hits (and receives write-backs). */
    public boolean remote() {
        return this == REMOTE_ONLY || this == COMBINED;
    }

    @Override
    public String toString() {
        return label;
    }

    /** Case-insensitive; {@code _} may stand for {@code -}. */
    @JsonCreator
    public static Tiers parse(String s) {
        String v = s == null ? "" : s.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Tiers x : values()) if (x.label.equals(v)) return x;
        List<String> all = new ArrayList<>();
        for (Tiers x : values()) all.add(x.label);
        throw new IllegalArgumentException("'" + s + "' is not one of " + String.join(", ", all));
    }
}
