package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Which clock a run uses: {@code sim} (virtual time, discrete events, deterministic) or {@code live} (wall clock, real store, real bytes). */
public enum Mode {
    SIM("sim"),
    LIVE("live");

    private final String label;

    Mode(String label) {
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
    public static Mode parse(String s) {
        String v = s == null ? "" : s.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Mode x : values()) if (x.label.equals(v)) return x;
        List<String> all = new ArrayList<>();
        for (Mode x : values()) all.add(x.label);
        throw new IllegalArgumentException("'" + s + "' is not one of " + String.join(", ", all));
    }
}
