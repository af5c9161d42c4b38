package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Prefill/decode placement: {@code colocated} (each instance does both) or {@code disaggregated} (prefill instances hand KV to decode instances over the transport). */
public enum Pd {
    COLOCATED,
    DISAGGREGATED;

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
    public static Pd parse(String s) {
        return ConfigEnums.parse(Pd.class, s);
    }
}
