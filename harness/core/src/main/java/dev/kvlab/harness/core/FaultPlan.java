package dev.kvlab.harness.core;

import dev.kvlab.harness.api.config.Fault;
import dev.kvlab.harness.api.config.FaultParams;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.transport.api.DurationSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * A run's fault, validated and resolved: what strikes, at which measured arrival, and its settings in numbers.
 * Built by {@link #of} from the run config (the validator calls it before anything runs; errors name the key).
 *
 * @param kind            the fault
 * @param at              share of the measured requests that have arrived when it strikes
 * @param nodes           the store's nodes
 * @param replicas        the store's replicas per object
 * @param hitNodes        node-crash, corrupt: the indices of the nodes hit
 * @param corruptFraction corrupt: share of a hit node's segment flipped
 * @param readDelayNanos  lease-expiry: added read latency
 * @param linkDelayNanos  link-delay: added batch latency
 * @param linkJitterNanos link-delay: uniform extra latency bound
 * @param linkLoss        link-loss: probability a batch is lost
 * @param downtimeNanos   master-restart: time without a master
 * @param livenessNanos   node-crash: the master's liveness TTL (a crashed node is unmounted that long after its last ping)
 * @param durationNanos   how long lease-expiry, link faults and master-partition last ({@link Long#MAX_VALUE}: to the end)
 * @param seed            the run's seed (which blocks a fault picks)
 * @param haLeaseNanos    master-failover, master-partition: the replicated masters' etcd lease
 */
public record FaultPlan(
        Fault kind,
        double at,
        int nodes,
        int replicas,
        List<Integer> hitNodes,
        double corruptFraction,
        long readDelayNanos,
        long linkDelayNanos,
        long linkJitterNanos,
        double linkLoss,
        long downtimeNanos,
        long livenessNanos,
        long durationNanos,
        long seed,
        long haLeaseNanos) {

    /** True for the faults of replicated masters (a leader and standbys on etcd). */
    public boolean failover() {
        return kind == Fault.MASTER_FAILOVER || kind == Fault.MASTER_PARTITION;
    }

    public boolean none() {
        return kind == Fault.NONE;
    }

    /** The 1-based measured arrival at which the fault strikes, of {@code measured} requests (at least the first). */
    public long strikeArrival(long measured) {
        return Math.max(1, (long) Math.ceil(at * measured));
    }

    /**
     * Validates and resolves the fault keys of {@code c}; {@code bad} makes the error for a dotted key and a reason.
     * {@code leaseNanos} is the store's lease (lease-expiry must outlast it).
     */
    public static FaultPlan of(RunConfig c, long leaseNanos, BiFunction<String, String, RuntimeException> bad) {
        Fault kind = c.fault();
        if (kind == null)
            throw bad.apply(
                    "fault",
                    "must be given (none | node-crash | corrupt | lease-expiry | link-delay | link-loss | master-restart"
                            + " | master-failover | master-partition)");
        double at = c.faultAt();
        if (!(at >= 0 && at <= 1))
            throw bad.apply("fault_at", "must be in [0, 1] (the share of measured requests arrived), got " + at);
        FaultParams p = c.faultParams();
        if (p == null) throw bad.apply("fault_params", "must be given");
        int nodes = c.store().nodes(), replicas = c.store().replicas();
        if (p.node() < 0 || p.node() >= nodes)
            throw bad.apply("fault_params.node", "must be a node index in [0, " + (nodes - 1) + "], got " + p.node());
        int hit = p.nodesHit() == 0 ? replicas : p.nodesHit();
        if (p.nodesHit() < 0)
            throw bad.apply("fault_params.nodes_hit", "must be >= 0 (0 = store.replicas), got " + p.nodesHit());
        if ((kind == Fault.NODE_CRASH) && hit >= nodes)
            throw bad.apply(
                    "fault_params.nodes_hit",
                    hit + " of " + nodes + " nodes would leave no node alive (give store.nodes > " + hit + ")");
        if (kind == Fault.CORRUPT && hit > nodes)
            throw bad.apply("fault_params.nodes_hit", hit + " nodes hit but the store has " + nodes);
        List<Integer> hitNodes = new ArrayList<>();
        for (int i = 0; i < Math.min(hit, nodes); i++) hitNodes.add((p.node() + i) % nodes);
        if (!(p.corruptFraction() > 0 && p.corruptFraction() <= 1))
            throw bad.apply("fault_params.corrupt_fraction", "must be in (0, 1], got " + p.corruptFraction());
        if (!(p.linkLoss() >= 0 && p.linkLoss() <= 1))
            throw bad.apply("fault_params.link_loss", "must be in [0, 1], got " + p.linkLoss());
        long readDelay = p.readDelay() == null
                ? leaseNanos + leaseNanos / 2
                : nanos(p.readDelay(), "fault_params.read_delay", bad);
        if (kind == Fault.LEASE_EXPIRY && readDelay <= leaseNanos)
            throw bad.apply(
                    "fault_params.read_delay",
                    "must exceed store.lease_ttl (" + DurationSpec.format(Duration.ofNanos(leaseNanos))
                            + ") or the fault cannot bite");
        long linkDelay = nanos(p.linkDelay(), "fault_params.link_delay", bad);
        long jitter = nanos(p.linkJitter(), "fault_params.link_jitter", bad);
        long downtime = nanos(p.masterDowntime(), "fault_params.master_downtime", bad);
        long liveness = nanos(p.livenessTtl(), "fault_params.liveness_ttl", bad);
        if (liveness < 100_000_000L)
            throw bad.apply("fault_params.liveness_ttl", "must be >= 100ms (nodes ping every 100 ms in fault cells)");
        long duration = p.duration() == null ? Long.MAX_VALUE : nanos(p.duration(), "fault_params.duration", bad);
        long haLease = nanos(p.haLease(), "fault_params.ha_lease", bad);
        if (haLease < 2_000_000_000L || haLease % 1_000_000_000L != 0)
            throw bad.apply(
                    "fault_params.ha_lease",
                    "must be whole seconds, at least 2s (etcd's leases are in seconds), got " + p.haLease());
        if (duration == 0) throw bad.apply("fault_params.duration", "must be > 0 (or null: to the end of the run)");
        if (kind != Fault.NONE
                && c.mode() == Mode.LIVE
                && !"bundled".equals(c.store().backend()))
            throw bad.apply(
                    "fault",
                    "live faults need store.backend bundled: the harness breaks the store it started, not an external one");
        if ((kind == Fault.MASTER_FAILOVER || kind == Fault.MASTER_PARTITION)
                && c.mode() == Mode.LIVE
                && dev.kvlab.store.EtcdServer.binary().isEmpty())
            throw bad.apply(
                    "fault",
                    "a live " + kind.label()
                            + " runs its masters on a real etcd, which is not installed (apt-get install etcd-server)");
        if (kind == Fault.NODE_CRASH
                && c.mode() == Mode.LIVE
                && "local".equalsIgnoreCase(c.transport().strip()))
            throw bad.apply(
                    "transport",
                    "a live node-crash runs its nodes as separate processes: use tcp, shm or rdma-emu, not local");
        return new FaultPlan(
                kind,
                at,
                nodes,
                replicas,
                List.copyOf(hitNodes),
                p.corruptFraction(),
                readDelay,
                linkDelay,
                jitter,
                p.linkLoss(),
                downtime,
                liveness,
                duration,
                c.seed(),
                haLease);
    }

    private static long nanos(String v, String key, BiFunction<String, String, RuntimeException> bad) {
        if (v == null) throw bad.apply(key, "must be given");
        try {
            return DurationSpec.parse(v).toNanos();
        } catch (IllegalArgumentException e) {
            throw bad.apply(key, e.getMessage());
        }
    }

    /** One line for reports: {@code node-crash at 30% (nodes 0, 1)}. */
    public String describe() {
        if (none()) return "none";
        String what = switch (kind) {
            case NODE_CRASH -> "SIGKILL of node process(es) " + hitNodes;
            case CORRUPT ->
                "flipped payloads in " + Math.round(corruptFraction * 100) + "% of node(s) " + hitNodes + " segment";
            case LEASE_EXPIRY -> "reads slowed by " + DurationSpec.format(Duration.ofNanos(readDelayNanos));
            case LINK_DELAY ->
                "link +" + DurationSpec.format(Duration.ofNanos(linkDelayNanos))
                        + (linkJitterNanos > 0
                                ? " (+[0, " + DurationSpec.format(Duration.ofNanos(linkJitterNanos)) + "])"
                                : "");
            case LINK_LOSS -> "link loses " + linkLoss + " of the batches";
            case MASTER_RESTART ->
                "master process SIGKILLed, started again after " + DurationSpec.format(Duration.ofNanos(downtimeNanos));
            case MASTER_FAILOVER ->
                "the leading master process (of 2 on etcd, lease " + DurationSpec.format(Duration.ofNanos(haLeaseNanos))
                        + ") SIGKILLed; a standby takes over";
            case MASTER_PARTITION ->
                "the leading master (of 2 on etcd, lease " + DurationSpec.format(Duration.ofNanos(haLeaseNanos))
                        + ") cut off from etcd"
                        + (durationNanos == Long.MAX_VALUE
                                ? ""
                                : " for " + DurationSpec.format(Duration.ofNanos(durationNanos)))
                        + "; it fences itself, a standby takes over";
            case NONE -> "none";
        };
        return kind.label() + " at " + Math.round(at * 100) + "% of the measured requests: " + what
                + (durationNanos != Long.MAX_VALUE && lasts()
                        ? " for " + DurationSpec.format(Duration.ofNanos(durationNanos))
                        : "");
    }

    /** True for faults that last a while (and may heal after {@code duration}); false for events. */
    public boolean lasts() {
        return kind == Fault.LEASE_EXPIRY || kind == Fault.LINK_DELAY || kind == Fault.LINK_LOSS;
    }
}
