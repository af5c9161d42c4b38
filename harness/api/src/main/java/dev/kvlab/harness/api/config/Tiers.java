package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;

/** Which KV tiers serve prefix hits: {@code none}, {@code local-only} (per-instance HBM/DRAM prefix cache), {@code remote-only} (the shared store), {@code combined}. */
public enum Tiers implements ConfigEnum {
    NONE,
    LOCAL_ONLY,
    REMOTE_ONLY,
    COMBINED;

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
        return label();
    }

    /** Case-insensitive; {@code _} may stand for {@code -}. */
    @JsonCreator
    public static Tiers parse(String s) {
        return ConfigEnum.parse(Tiers.class, s);
    }
}
