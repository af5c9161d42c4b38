package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The fault injected into a run (config key {@code fault}, a factor like any other), at {@code fault_at} of the
 * measured requests, with the settings of {@link FaultParams}. Live runs break the real thing; sim runs model it.
 */
public enum Fault {
    /** No fault. */
    NONE("none"),
    /** Storage node processes are killed with SIGKILL: their objects become misses, replicas elsewhere still serve. */
    NODE_CRASH("node-crash"),
    /** A fraction of the payloads in a node's segment is flipped: verification must catch every one. */
    CORRUPT("corrupt"),
    /** Reads are slowed past the lease: they end LEASE_EXPIRED, never data. */
    LEASE_EXPIRY("lease-expiry"),
    /** The client's link gets added latency. */
    LINK_DELAY("link-delay"),
    /** The client's link drops batches (connections lost). */
    LINK_LOSS("link-loss"),
    /** The master restarts: its metadata is gone, clients and nodes reconnect, in-flight puts never become half visible. */
    MASTER_RESTART("master-restart");

    private final String label;

    Fault(String label) {
        this.label = label;
    }

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
    public static Fault parse(String s) {
        String v = s == null ? "" : s.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Fault x : values()) if (x.label.equals(v)) return x;
        List<String> all = new ArrayList<>();
        for (Fault x : values()) all.add(x.label);
        throw new IllegalArgumentException("'" + s + "' is not one of " + String.join(", ", all));
    }
}
