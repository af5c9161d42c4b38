package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * How a disaggregated cell hands a prompt's KV from its prefill instance to its decode instance: {@code direct} (the
 * prefill side WRITEs the blocks into the decode side's registered buffer through the transfer engine, no store, as
 * Mooncake's PD path) or {@code store} (put by the prefill side, get by the decode side through kvlab's store, as the
 * Mooncake Store / LMCache path). Read only with {@code pd: disaggregated}.
 */
public enum PdTransfer implements ConfigEnum {
    DIRECT,
    STORE;

    @Override
    public String toString() {
        return label();
    }

    /** Case-insensitive; {@code _} may stand for {@code -}. */
    @JsonCreator
    public static PdTransfer parse(String s) {
        return ConfigEnum.parse(PdTransfer.class, s);
    }
}
