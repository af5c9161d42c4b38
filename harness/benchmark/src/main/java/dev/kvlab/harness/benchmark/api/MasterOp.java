package dev.kvlab.harness.benchmark.api;

import java.util.Locale;

/** What {@code kvlab bench master} issues; the RPCs each one makes. */
public enum MasterOp {
    PUT,
    GET,
    BATCH_PUT,
    BATCH_GET;

    /** {@code put}, {@code get}, {@code batch-put}, {@code batch-get}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static MasterOp parse(String s) {
        for (MasterOp o : values()) if (o.label().equals(s)) return o;
        throw new IllegalArgumentException("--op: '" + s + "' is not put, get, batch-put or batch-get");
    }

    /** True for the lookups (get, batch-get), false for the puts. */
    public boolean reads() {
        return this == GET || this == BATCH_GET;
    }

    /** True for the batch forms (batch-put, batch-get). */
    public boolean batched() {
        return this == BATCH_PUT || this == BATCH_GET;
    }
}
