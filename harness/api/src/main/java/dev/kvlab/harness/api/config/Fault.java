package dev.kvlab.harness.api.config;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * The fault injected into a run (config key {@code fault}, a factor like any other), at {@code fault_at} of the
 * measured requests, with the settings of {@link FaultParams}. Live runs break the real thing; sim runs model it.
 */
public enum Fault implements ConfigEnum {
    /** No fault. */
    NONE,
    /** Storage node processes are killed with SIGKILL: their objects become misses, replicas elsewhere still serve. */
    NODE_CRASH,
    /** A fraction of the payloads in a node's segment is flipped: verification must catch every one. */
    CORRUPT,
    /** Reads are slowed past the lease: they end LEASE_EXPIRED, never data. */
    LEASE_EXPIRY,
    /** The client's link gets added latency. */
    LINK_DELAY,
    /** The client's link drops batches (connections lost). */
    LINK_LOSS,
    /** The master restarts: its metadata is gone, clients and nodes reconnect, in-flight puts never become half visible. */
    MASTER_RESTART,
    /** The leader of replicated masters (etcd) is SIGKILLed: a standby takes over with the oplog's metadata. */
    MASTER_FAILOVER,
    /** The leader of replicated masters is cut off from etcd: it fences itself when its lease runs out, a standby takes over. */
    MASTER_PARTITION;

    @Override
    public String toString() {
        return label();
    }

    /** Case-insensitive; {@code _} may stand for {@code -}. */
    @JsonCreator
    public static Fault parse(String s) {
        return ConfigEnum.parse(Fault.class, s);
    }
}
