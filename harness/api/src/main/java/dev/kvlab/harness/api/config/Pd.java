package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;

/** Prefill/decode placement: {@code colocated} (each instance does both) or {@code disaggregated} (prefill instances hand KV to decode instances over the transport). */
public enum Pd implements ConfigEnum {
    COLOCATED,
    DISAGGREGATED;

    @Override
    public String toString() {
        return label();
    }

    /** Case-insensitive; {@code _} may stand for {@code -}. */
    @JsonCreator
    public static Pd parse(String s) {
        return ConfigEnum.parse(Pd.class, s);
    }
}
