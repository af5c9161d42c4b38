package dev.kvlab.harness.api.config;

/**
 * Settings of the {@link Fault} of a run (config section {@code fault_params}); each applies to the faults named.
 *
 * @param node            node-crash, corrupt: index of the (first) node hit [0]
 * @param nodesHit        node-crash, corrupt: nodes hit, from {@code node} on (wrapping); 0 = {@code store.replicas}, the
 *                        fewest that can reach every copy of an object (with fewer, replicas elsewhere serve everything) [0]
 * @param corruptFraction corrupt: share of each hit node's segment whose payload bytes are flipped (every object that
 *                        overlaps a flipped stretch is corrupt) [0.5]
 * @param readDelay       lease-expiry: how much later every read completes; null = 1.5 × {@code store.lease_ttl} [null]
 * @param linkDelay       link-delay: latency added to every transfer batch [20ms]
 * @param linkJitter      link-delay: further uniform latency in [0, jitter] [0s]
 * @param linkLoss        link-loss: probability that a transfer batch is lost (its connection dropped) [0.2]
 * @param masterDowntime  master-restart: how long the master is gone before it comes back [1s]
 * @param livenessTtl     node-crash: the master unmounts a node that stopped pinging this long ago (live: the master's client
 *                        TTL in fault cells; sim: when the crashed node's objects vanish from the metadata) [2s]
 * @param duration        lease-expiry, link-delay, link-loss, master-partition: how long the fault lasts; null = to the end of the run [null]
 * @param haLease         master-failover, master-partition: the replicated masters' etcd lease (whole seconds, at least 2): the old
 *                        leader's lease must run out before a standby takes over (sim: the time without a master) [3s]
 */
public record FaultParams(
        int node,
        int nodesHit,
        double corruptFraction,
        String readDelay,
        String linkDelay,
        String linkJitter,
        double linkLoss,
        String masterDowntime,
        String livenessTtl,
        String duration,
        String haLease) {}
