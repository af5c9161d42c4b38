package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;

/** Which clock a run uses: {@code sim} (virtual time, discrete events, deterministic) or {@code live} (wall clock, real store, real bytes). */
public enum Mode implements ConfigEnum {
    SIM,
    LIVE;

    @Override
    public String toString() {
        return label();
    }

    /** Case-insensitive; {@code _} may stand for {@code -}. */
    @JsonCreator
    public static Mode parse(String s) {
        return ConfigEnum.parse(Mode.class, s);
    }
}
