package dev.kvlab.harness.core.internal.sim;

import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.FaultPlan;
import dev.kvlab.harness.core.internal.fault.FaultTrigger;
import dev.kvlab.harness.spi.EventLoop;
import dev.kvlab.harness.spi.ServingListener;
import dev.kvlab.store.api.master.Master;

/**
 * The faults as the simulator models them (deterministic: decisions hash the run's seed, the key and the loop's
 * order of events). {@code node-crash}: the hit nodes' segments are unmounted when the fault strikes, so their
 * reads fail from the strike on (a fetch of a block whose every copy is on a dead node falls back; one with a copy
 * elsewhere is served from it), and after the liveness TTL the master unmounts them, so their objects vanish (the
 * store master's own logic drops an object with its last replica) and lookups stop offering them. {@code corrupt}: from the strike on, a fetched block fails verification with the chance
 * that every copy of it sits on a hit node and was flipped: C(hit, r)/C(nodes, r) × fraction^r. {@code
 * lease-expiry}: fetches take {@code read_delay} longer, so they end after their lease and the store's check
 * rejects them. {@code link-delay}: fetches take the link delay longer (the auto policy's estimate does not know,
 * as live). {@code link-loss}: each fetched block is lost with the loss probability. {@code master-restart}: every
 * segment is unmounted and mounted again empty (the metadata is gone); the downtime itself is not modelled.
 * {@code master-failover} and {@code master-partition}: for {@code ha_lease} after the strike (the old leader's etcd
 * lease running out; the new leader's replay and promotion take milliseconds and are not modelled) no master answers:
 * lookups find nothing, puts fail, ends of puts in flight fail (never visible); afterwards the new leader holds every
 * committed object (the oplog's lag of one etcd round trip is not modelled: objects_lost is 0 by the model).
 */
public final class SimFaults implements SimStore.FaultHook {

    private final FaultPlan fault;
    private final EventLoop loop;
    private final double corruptChance;
    private SimStore store;
    private long origin;
    private FaultTrigger trigger;
    private long draws;
    private java.util.Set<String> dead = java.util.Set.of();
    private boolean unmounted;
    private long failedReads;
    private long failoverKeys;

    private SimFaults(FaultPlan fault, EventLoop loop) {
        this.fault = fault;
        this.loop = loop;
        int r = Math.max(1, fault.replicas()), h = fault.hitNodes().size();
        this.corruptChance = h < r ? 0 : choose(h, r) / choose(fault.nodes(), r) * Math.pow(fault.corruptFraction(), r);
    }

    /** The cell's faults, or null when it has none. */
    public static SimFaults of(CellPlan plan, EventLoop loop) {
        FaultPlan f = FaultPlan.of(
                plan.config(), plan.leaseTtlNanos(), (k, why) -> new IllegalArgumentException(k + ": " + why));
        return f.none() ? null : new SimFaults(f, loop);
    }

    /** Gives the faults the store they act on (once it exists). */
    public void attach(SimStore s) {
        this.store = s;
    }

    /** The measurement listener with the trigger in front; the fault strikes on the chosen measured arrival. */
    public ServingListener measured(ServingListener measurement, long origin, long n) {
        this.origin = origin;
        trigger = new FaultTrigger(
                measurement,
                origin,
                fault.strikeArrival(n),
                fault.lasts() ? fault.durationNanos() : Long.MAX_VALUE,
                this::strike);
        return new ServingListener() { // lookups must stop offering a crashed node's objects once the TTL has passed
            @Override
            public void arrived(dev.kvlab.harness.spi.Served s, long now) {
                active();
                trigger.arrived(s, now);
            }

            @Override
            public void admitted(dev.kvlab.harness.spi.Served s, long now) {
                active();
                trigger.admitted(s, now);
            }

            @Override
            public void fetched(dev.kvlab.harness.spi.Served s, long fetchNanos, long now) {
                trigger.fetched(s, fetchNanos, now);
            }

            @Override
            public void firstToken(dev.kvlab.harness.spi.Served s, long now) {
                trigger.firstToken(s, now);
            }

            @Override
            public void token(dev.kvlab.harness.spi.Served s, long now) {
                trigger.token(s, now);
            }

            @Override
            public void completed(dev.kvlab.harness.spi.Served s, long now) {
                trigger.completed(s, now);
            }

            @Override
            public void failed(dev.kvlab.harness.spi.Served s, long now) {
                trigger.failed(s, now);
            }
        };
    }

    private void strike() {
        Master m = store.master();
        switch (fault.kind()) {
            case NODE_CRASH -> {
                java.util.Set<String> d = new java.util.HashSet<>();
                for (int i : fault.hitNodes()) d.add(SimStore.segmentName(i));
                dead = d;
            }
            case MASTER_RESTART -> {
                long perNode = 0;
                for (var seg : m.segments()) perNode = Math.max(perNode, seg.size());
                for (int i = 0; i < fault.nodes(); i++) m.unmountSegment(SimStore.segmentName(i));
                for (int i = 0; i < fault.nodes(); i++)
                    m.mountSegment(SimStore.clientName(i), SimStore.segmentName(i), perNode);
            }
            default -> {
                // lasting faults act through the hooks below while active
            }
        }
    }

    private boolean active() {
        if (trigger == null || !trigger.active(loop.now())) return false;
        if (!unmounted
                && fault.kind() == dev.kvlab.harness.api.config.Fault.NODE_CRASH
                && loop.now() >= trigger.struckAtNanos() + origin + fault.livenessNanos()) {
            unmounted = true; // the liveness TTL passed: the master drops the silent nodes
            for (String seg : dead) store.master().unmountSegment(seg);
        }
        return true;
    }

    @Override
    public int checksumRead(String key, dev.kvlab.store.api.master.ReplicaList read) {
        if (fault.kind() != dev.kvlab.harness.api.config.Fault.NODE_CRASH || !active())
            return checksumRead(key, read.crc32c());
        for (var r : read.replicas()) if (!dead.contains(r.segment())) return read.crc32c(); // a live copy serves
        failedReads++;
        return ~read.crc32c();
    }

    @Override
    public int checksumRead(String key, int stored) {
        if (!active()) return stored;
        boolean fail = switch (fault.kind()) {
            case MASTER_RESTART -> !store.master().exists(key); // its metadata went while it was in flight
            case CORRUPT -> unit(hash(fault.seed(), key, 0)) < corruptChance;
            case LINK_LOSS -> unit(hash(fault.seed(), key, ++draws)) < fault.linkLoss();
            default -> false;
        };
        if (!fail) return stored;
        failedReads++;
        return ~stored;
    }

    @Override
    public boolean masterReachable(int keys) {
        if (!failoverWindow()) return true;
        failoverKeys += keys;
        return false;
    }

    /** Whether a modelled failover is under way: struck, and the lease not yet run out. */
    private boolean failoverWindow() {
        if (fault.kind() != dev.kvlab.harness.api.config.Fault.MASTER_FAILOVER
                && fault.kind() != dev.kvlab.harness.api.config.Fault.MASTER_PARTITION) return false;
        if (trigger == null || trigger.struckAtNanos() < 0) return false;
        return loop.now() < origin + trigger.struckAtNanos() + fault.haLeaseNanos();
    }

    @Override
    public long fetchDelayNanos() {
        if (!active()) return 0;
        return switch (fault.kind()) {
            case LEASE_EXPIRY -> fault.readDelayNanos();
            case LINK_DELAY ->
                fault.linkDelayNanos()
                        + (fault.linkJitterNanos() == 0
                                ? 0
                                : (long) (unit(hash(fault.seed(), "jitter", ++draws)) * fault.linkJitterNanos()));
            default -> 0;
        };
    }

    /** The fault's figures for the cell's extras (fault_at_s: seconds into the measured phase; NaN if it never struck). */
    public void extras(Figures extras) {
        long at = trigger == null ? -1 : trigger.struckAtNanos();
        Columns.FAULT.put(extras, fault.kind().label());
        Columns.FAULT_AT_S.put(extras, at < 0 ? Double.NaN : at / 1e9);
        long heals = trigger == null ? Long.MAX_VALUE : trigger.healsAt();
        Columns.FAULT_END_S.put(extras, heals == Long.MAX_VALUE ? Double.NaN : (at + fault.durationNanos()) / 1e9);
        Columns.FAULT_DESCRIPTION.put(extras, fault.describe() + " (modelled)");
        Columns.FAULT_FAILED_READS.put(extras, failedReads);
        if (fault.failover()) {
            Columns.FAILOVER_S.put(extras, at < 0 ? Double.NaN : fault.haLeaseNanos() / 1e9);
            Columns.FAILOVER_FALLBACKS.put(extras, at < 0 ? Double.NaN : (double) failoverKeys);
            Columns.OBJECTS_LOST.put(extras, at < 0 ? Double.NaN : 0.0);
        }
    }

    private static double choose(int n, int k) {
        double c = 1;
        for (int i = 0; i < k; i++) c = c * (n - i) / (i + 1);
        return c;
    }

    private static long hash(long seed, String key, long salt) {
        long h = seed * 0x9E3779B97F4A7C15L ^ salt * 0xC2B2AE3D27D4EB4FL;
        for (int i = 0; i < key.length(); i++) h = mix(h + key.charAt(i));
        return mix(h);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static double unit(long r) {
        return (r >>> 11) * 0x1.0p-53;
    }
}
