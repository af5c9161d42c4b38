package dev.kvlab.store.api;

import java.util.List;

/**
 * How a put is placed (Mooncake's ReplicateConfig).
 *
 * @param replicaNum         desired replicas, each on a distinct segment; best effort [1]
 * @param softPin            evicted only when unpinned objects are not enough; pin lasts the soft-pin TTL [false]
 * @param hardPin            never evicted [false]
 * @param preferredSegments  segment names to try first, or empty
 */
public record ReplicateConfig(int replicaNum, boolean softPin, boolean hardPin, List<String> preferredSegments) {

    public static final ReplicateConfig DEFAULT = new ReplicateConfig(1, false, false, List.of());

    public ReplicateConfig {
        if (replicaNum < 1) throw new IllegalArgumentException("replica_num must be >= 1, got " + replicaNum);
        preferredSegments = List.copyOf(preferredSegments == null ? List.of() : preferredSegments);
    }

    public static ReplicateConfig replicas(int n) {
        return new ReplicateConfig(n, false, false, List.of());
    }
}
