package dev.kvlab.harness.api.config;

import dev.kvlab.store.api.master.Master;
import dev.kvlab.transport.api.ByteSize;

/**
 * The shared store (remote tier).
 *
 * @param backend        live: {@code bundled} (embedded cluster over the transport), {@code kvlab://HOST:PORT}, or any spec a
 *                       store backend found by the store's backend registry accepts [bundled]
 * @param nodes          storage nodes (segments) [4]
 * @param capacity       total capacity over all nodes, e.g. {@code 2TiB} (sim) or {@code 2GiB} (live), or tokens of the
 *                       run's model ({@code 30Mtok}: KV bytes per token, counted once) [2TiB]
 * @param replicas       replicas per object [1]
 * @param leaseTtl       lease granted with a read [10s]
 * @param highWatermark  usage above which the master evicts [0.9]
 * @param evictionRatio  share of capacity one eviction run frees [0.05]
 * @param lookupLatency  sim: one metadata round trip (exists / replica list) [100us]
 * @param writeBackConcurrency write-back batches one instance has in flight at once [2]
 * @param writeBackQueueBlocks blocks one instance may have queued for write-back; new ones beyond are dropped
 *                             (counted): an asynchronous store queue is bounded, as in real engines [256]
 */
public record StoreConfig(
        String backend,
        int nodes,
        String capacity,
        int replicas,
        String leaseTtl,
        double highWatermark,
        double evictionRatio,
        String lookupLatency,
        int writeBackConcurrency,
        int writeBackQueueBlocks) {

    /** The values of a checked store config, in bytes and nanoseconds. */
    public record Checked(long capacityBytes, long leaseTtlNanos, long lookupLatencyNanos) {}

    /**
     * Checks every key but which backend it is (the backend registry's to say): the nodes, a capacity
     * ({@code bytesPerToken} per token of the run's model) that gives each node at least one KV block of
     * {@code blockBytes} and at most a segment, the replicas, durations and write-back settings.
     */
    public Checked check(ConfigCheck check, long bytesPerToken, long blockBytes) {
        check.atLeast("store.nodes", nodes, 1);
        if (nodes > 1024) throw check.bad("store.nodes", "must be <= 1024");
        long cap = checkedCapacity(check, bytesPerToken, blockBytes);
        check.atLeast("store.replicas", replicas, 1);
        if (replicas > nodes)
            throw check.bad("store.replicas", "must be <= store.nodes (" + nodes + "), got " + replicas);
        long lease = check.nanos("store.lease_ttl", leaseTtl, false);
        check.fraction("store.high_watermark", highWatermark);
        check.fraction("store.eviction_ratio", evictionRatio);
        long lookup = check.nanos("store.lookup_latency", lookupLatency, true);
        check.atLeast("store.write_back_concurrency", writeBackConcurrency, 1);
        if (writeBackConcurrency > 64) throw check.bad("store.write_back_concurrency", "must be <= 64");
        check.atLeast("store.write_back_queue_blocks", writeBackQueueBlocks, 0);
        return new Checked(cap, lease, lookup);
    }

    /** The capacity in bytes (the store holds KV once): at least one block and at most a segment per node. */
    private long checkedCapacity(ConfigCheck check, long bytesPerToken, long blockBytes) {
        long cap = check.kvSize("store.capacity", capacity, bytesPerToken, false);
        if (cap / nodes < blockBytes)
            throw check.bad(
                    "store.capacity",
                    "each of the " + nodes + " nodes gets " + ByteSize.format(cap / nodes)
                            + ", less than one KV block (" + ByteSize.format(blockBytes) + ")");
        if (cap / nodes > Master.MAX_SEGMENT_BYTES)
            throw check.bad(
                    "store.capacity",
                    "each of the " + nodes + " nodes would get " + ByteSize.format(cap / nodes)
                            + ", more than a store segment can be (" + ByteSize.format(Master.MAX_SEGMENT_BYTES)
                            + "); lower store.capacity or raise store.nodes");
        return cap;
    }
}
