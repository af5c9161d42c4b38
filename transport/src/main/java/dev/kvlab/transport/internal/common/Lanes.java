package dev.kvlab.transport.internal.common;

import dev.kvlab.transport.api.TransportConfig;

/** How many copy lanes a memory-copy transport runs: the configured connections per peer, at most one per CPU. */
public final class Lanes {
    private Lanes() {}

    public static int forCopies(TransportConfig config) {
        String v = config.options().get("lanes");
        if (v != null) {
            try {
                int n = Integer.parseInt(v.strip());
                if (n >= 1 && n <= 256) return n;
            } catch (NumberFormatException ignored) {
                // fall through to the message below
            }
            throw new IllegalArgumentException("option lanes must be an integer in 1..256, got '" + v + "'");
        }
        return Math.max(
                1, Math.min(config.connectionsPerPeer(), Runtime.getRuntime().availableProcessors()));
    }
}
