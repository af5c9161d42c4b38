package dev.kvlab.harness.api.config;

import dev.kvlab.harness.api.input.BadInputException;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Which clock uses which run-config key: every key of the built-in defaults is listed here with the clocks that
 * honour it. A key given (in a file, a matrix or {@code --set}) for a clock that does not use it is refused before
 * anything runs (exit 2, naming the key and the clock) instead of being silently ignored.
 */
public final class ClockKeys {

    private static final Set<Mode> BOTH = EnumSet.allOf(Mode.class),
            SIM = EnumSet.of(Mode.SIM),
            LIVE = EnumSet.of(Mode.LIVE);

    /** Every key (dotted; a subtree's keys by its prefix where all of them share their users) → the clocks that use it. */
    static final Map<String, Set<Mode>> USERS = new LinkedHashMap<>();

    /** Why a clock does not use a key, for the error. */
    private static final Map<String, String> WHY = new LinkedHashMap<>();

    static {
        for (String k : new String[] {
            ConfigKeys.MODE,
            ConfigKeys.SEED,
            ConfigKeys.CATALOG,
            ConfigKeys.MODEL,
            ConfigKeys.HARDWARE,
            ConfigKeys.KV_DTYPE,
            ConfigKeys.EFFICIENCY,
            ConfigKeys.CLUSTER,
            ConfigKeys.SCHEDULER,
            ConfigKeys.LOCAL,
            "store.backend",
            "store.nodes",
            "store.capacity",
            "store.replicas",
            "store.lease_ttl",
            "store.high_watermark",
            "store.eviction_ratio",
            "store.write_back_concurrency",
            "store.write_back_queue_blocks",
            ConfigKeys.WORKLOAD,
            ConfigKeys.WARMUP,
            ConfigKeys.CACHE_STATE,
            ConfigKeys.TIERS,
            ConfigKeys.POLICY,
            ConfigKeys.TRANSPORT,
            ConfigKeys.TRANSPORT_PROFILE,
            ConfigKeys.PD,
            ConfigKeys.PD_TRANSFER,
            ConfigKeys.SLO,
            ConfigKeys.MEASUREMENT,
            ConfigKeys.FAULT,
            ConfigKeys.FAULT_AT,
            ConfigKeys.FAULT_PARAMS,
            ConfigKeys.TARGET
        }) USERS.put(k, BOTH);
        // live: the link behind rdma-emu's NIC model and the PD handoff link; sim: the modelled data path
        USERS.put(ConfigKeys.LINK, BOTH);
        USERS.put("store.lookup_latency", SIM);
        WHY.put(
                "store.lookup_latency",
                "a live cell's metadata round trips are real (it measures them: link_measured_lookup_us)");
        USERS.put("measurement.early_stop", LIVE);
        WHY.put(
                "measurement.early_stop",
                "sim cells run in full: they are deterministic and cheap, and a capacity figure must reproduce as a plain sim run");
        USERS.put(ConfigKeys.LIVE, LIVE);
        WHY.put(ConfigKeys.LIVE, "the sim clock has no loop thread to spin or I/O threads to size");
    }

    private ClockKeys() {}

    /** Every run-config key listed here (dotted; sections where all their keys share their users), in order. */
    public static java.util.List<String> keys() {
        return java.util.List.copyOf(USERS.keySet());
    }

    /** The clocks that use dotted {@code key} (by its longest listed prefix), or null when the key is not listed. */
    public static Set<Mode> users(String key) {
        for (String k = key; ; ) {
            Set<Mode> u = USERS.get(k);
            if (u != null) return u;
            int dot = k.lastIndexOf('.');
            if (dot < 0) return null;
            k = k.substring(0, dot);
        }
    }

    /** Refuses every listed key that {@code given} says was given (it or a key below it) and {@code mode} does not use. */
    public static void refuseUnused(Mode mode, Predicate<String> given, Function<String, String> origin) {
        for (Map.Entry<String, Set<Mode>> e : USERS.entrySet()) {
            if (e.getValue().contains(mode) || !given.test(e.getKey())) continue;
            String o = origin.apply(e.getKey());
            throw new BadInputException((o == null ? "config" : o) + ": key '" + e.getKey() + "' is not used by the "
                    + mode.label() + " clock (" + WHY.getOrDefault(e.getKey(), "") + "); remove it, or set it only for "
                    + other(e.getValue()) + " cells");
        }
    }

    private static String other(Set<Mode> users) {
        return String.join("/", users.stream().map(Mode::label).toList());
    }
}
