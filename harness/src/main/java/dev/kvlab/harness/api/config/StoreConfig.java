package dev.kvlab.harness.api.config;

/**
 * The shared store (remote tier).
 *
 * @param backend        live: {@code bundled} (embedded cluster over the transport) or {@code kvlab://HOST:PORT} [bundled]
 * @param nodes          storage nodes (segments) [4]
 * @param capacity       total capacity over all nodes, e.g. {@code 2TiB} (sim) or {@code 2GiB} (live) [2TiB]
 * @param replicas       replicas per object [1]
 * @param leaseTtl       lease granted with a read [10s]
 * @param highWatermark  usage above which the master evicts [0.9]
 * @param evictionRatio  share of capacity one eviction run frees [0.05]
 * @param lookupLatency  sim: one metadata round trip (exists / replica list) [100us]
 */
public record StoreConfig(String backend, int nodes, String capacity, int replicas, String leaseTtl, double highWatermark,
                          double evictionRatio, String lookupLatency) {}
