package dev.kvlab.cli.master;

import java.util.List;
import java.util.Locale;

/** What {@code kvlab bench master} issues; the RPCs each one makes. */
public enum MasterOp {
    PUT, GET, BATCH_PUT, BATCH_GET;

    /** {@code put}, {@code get}, {@code batch-put}, {@code batch-get}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static MasterOp parse(String s) {
        for (MasterOp o : values()) if (o.label().equals(s)) return o;
        throw new IllegalArgumentException("--op: '" + s + "' is not put, get, batch-put or batch-get");
    }

    boolean reads() {
        return this == GET || this == BATCH_GET;
    }

    boolean batched() {
        return this == BATCH_PUT || this == BATCH_GET;
    }

    List<MeasuredMasterChannel.Rpc> rpcs() {
        return reads() ? List.of(MeasuredMasterChannel.Rpc.GET_REPLICA_LIST)
                : List.of(MeasuredMasterChannel.Rpc.PUT_START, MeasuredMasterChannel.Rpc.PUT_END);
    }
}
