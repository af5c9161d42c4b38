package dev.kvlab.store.internal.cluster;

import dev.kvlab.store.api.AllocationStrategy;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.internal.client.DelayingTransferEngine;
import dev.kvlab.transport.api.DurationSpec;
import dev.kvlab.transport.api.TransferEngine;
import java.time.Duration;
import java.util.Set;

/**
 * The store backends' {@link BackendOptions#extra()} settings. Bundled: {@code strategy}, {@code seed},
 * {@code control} (inproc | grpc), {@code lease-ttl}, {@code client-ttl}. Bundled and kvlab://: {@code read-delay}
 * (every transfer completes that much later: the lease-expiry fault). Unknown keys are errors.
 */
public final class BackendExtras {

    static final Set<String> KNOWN = Set.of("strategy", "seed", "control", "lease-ttl", "client-ttl", "read-delay");

    private BackendExtras() {}

    public static void check(BackendOptions o) {
        for (String k : o.extra().keySet())
            if (!KNOWN.contains(k))
                throw new IllegalArgumentException("unknown store backend setting '" + k + "' (known: "
                        + String.join(", ", KNOWN.stream().sorted().toList()) + ")");
    }

    /** The typed {@link BackendOptions#master()} (or the defaults) with the extras given applied on top. */
    public static MasterConfig masterConfig(BackendOptions o) {
        MasterConfig mc = o.master() != null ? o.master() : MasterConfig.defaults();
        String v;
        if ((v = o.extra().get("strategy")) != null) mc = mc.withStrategy(AllocationStrategy.parse(v));
        if ((v = o.extra().get("seed")) != null) {
            try {
                mc = mc.withSeed(Long.parseLong(v.strip()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("seed '" + v + "' is not a whole number");
            }
        }
        if ((v = o.extra().get("lease-ttl")) != null) mc = mc.withLeaseTtl(DurationSpec.parse(v));
        if ((v = o.extra().get("client-ttl")) != null) mc = mc.withClientTtl(DurationSpec.parse(v));
        return mc;
    }

    /** The client's engine, slowed down when {@code read-delay} is set. */
    public static TransferEngine clientEngine(TransferEngine e, BackendOptions o) {
        String v = o.extra().get("read-delay");
        if (v == null) return e;
        Duration d = DurationSpec.parse(v);
        return d.isZero() ? e : new DelayingTransferEngine(e, d);
    }
}
