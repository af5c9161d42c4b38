package dev.kvlab.harness.api;

import java.util.Locale;

/**
 * What {@code kvlab run --shard K/N} splits across hosts ({@code --split}): {@link #RUNS} deals the matrix's runs
 * (cells × replicates) round-robin, so each host runs whole cells; {@link #REQUESTS} has every host run every cell of
 * an {@code openai} target but send only every N-th request of its arrival stream, at its intended time and with the
 * same seed, so the N hosts together offer the whole stream (a load one client host cannot offer alone).
 */
public enum ShardSplit {
    RUNS,
    REQUESTS;

    /** {@code runs} or {@code requests}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@code runs} | {@code requests}; {@link IllegalArgumentException} naming {@code --split} otherwise. */
    public static ShardSplit parse(String text) {
        String s = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        for (ShardSplit v : values()) if (v.label().equals(s)) return v;
        throw new IllegalArgumentException(
                "--split must be runs (each shard runs whole cells) or requests (each shard sends every N-th request"
                        + " of every cell of an openai target), got '" + text + "'");
    }
}
