package dev.kvlab.harness.api.config;

/**
 * The shared store (remote tier).
 *
 * @param backend        live: {@code bundled} (embedded cluster over the transport) or {@code kvlab://HOST:PORT} [bundled]
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
public record StoreConfig(String backend, int nodes, String capacity, int replicas, String leaseTtl, double highWatermark,
                          double evictionRatio, String lookupLatency, int writeBackConcurrency,
                          int writeBackQueueBlocks) {}
