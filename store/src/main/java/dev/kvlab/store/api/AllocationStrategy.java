package dev.kvlab.store.api;

import java.util.Locale;

/** How the master picks segments for the replicas of a new object (preferred segments always go first). */
public enum AllocationStrategy {
    /** Segments in a random order drawn from the master's seeded generator (Mooncake's default). */
    RANDOM("random"),
    /** Segments with the highest free ratio first; ties by segment name. */
    FREE_RATIO_FIRST("free-ratio-first");

    private final String label;

    AllocationStrategy(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** Parses {@code random} or {@code free-ratio-first}; {@link IllegalArgumentException} otherwise. */
    public static AllocationStrategy parse(String s) {
        String v = s == null ? "" : s.strip().toLowerCase(Locale.ROOT);
        for (AllocationStrategy a : values()) if (a.label.equals(v)) return a;
        throw new IllegalArgumentException("unknown allocation strategy '" + s + "' (use random or free-ratio-first)");
    }

    @Override
    public String toString() {
        return label;
    }
}
