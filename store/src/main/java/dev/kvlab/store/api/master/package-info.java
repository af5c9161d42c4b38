/**
 * The store master's metadata operations ({@link dev.kvlab.store.api.master.Master}) and their answers, for
 * simulation; the master itself is the store's internal ({@code internal.master.StoreMaster}).
 *
 * <p>{@code dev.kvlab.store.Masters.singleThreaded} takes a {@link dev.kvlab.store.api.MasterConfig} (with the seed)
 * and a {@link java.time.Clock}; the master it gives starts no thread, opens no socket and holds no object bytes. A
 * simulator drives it like this:
 * <pre>{@code
 * Master m = Masters.singleThreaded(MasterConfig.defaults().withSeed(seed), virtualClock);
 * m.mountSegment("node0", "node0-seg0", 64L << 30);           // a segment is just a size
 * PutStartResult p = m.putStart("tenant/block-17", 2 << 20, crc, ReplicateConfig.DEFAULT);
 * // ... cost the WRITE with a TransportModel, advance the virtual clock ...
 * m.putEnd("tenant/block-17", p.putId());                      // or putRevoke(...)
 * ReplicaList l = m.getReplicaList("tenant/block-17");         // grants a lease until l.leaseDeadlineNanos()
 * // ... cost the READ; if the virtual clock passed the deadline, the read is LEASE_EXPIRED (a miss) ...
 * MasterStats s = m.stats();                                   // objects, bytes used, evictions, leases
 * }</pre>
 * Same seed + same calls at the same clock readings = the same placements, evictions and stats.
 */
package dev.kvlab.store.api.master;
