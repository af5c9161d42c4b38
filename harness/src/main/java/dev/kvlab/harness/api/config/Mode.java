package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Which clock a run uses: {@code sim} (virtual time, discrete events, deterministic) or {@code live} (wall clock, real store, real bytes). */
public enum Mode {
    SIM,
    LIVE;

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
    public static Mode parse(String s) {
        return ConfigEnums.parse(Mode.class, s);
    }
}
