package dev.kvlab.harness.benchmark.api;

import java.util.Locale;

/**
 * How each {@code kvlab bench master} client issues its calls; either way a client has one call in flight and a
 * connection of its own, as each of {@code master_bench}'s clients does.
 */
public enum ClientMode {
    /** The next call is issued from the previous one's completion on gRPC's transport thread (no thread per client). */
    ASYNC,
    /** A thread per client making the blocking calls the store client makes (a thread handoff per call). */
    BLOCKING;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ClientMode parse(String s) {
        for (ClientMode m : values()) if (m.label().equals(s)) return m;
        throw new IllegalArgumentException("--client-mode: '" + s + "' is not async or blocking");
    }
}
