/**
 * The master's high availability on etcd: leader election with a lease ({@link dev.kvlab.store.internal.ha.HaMaster}),
 * the ordered oplog the leader writes ({@link dev.kvlab.store.internal.ha.OpLogWriter}) and standbys apply
 * ({@link dev.kvlab.store.internal.ha.OpLogReader}), snapshots that bound the replay, and the client side that follows
 * the leader ({@link dev.kvlab.store.internal.ha.EtcdMasterChannel}). etcd is spoken through its v3 JSON gateway
 * ({@link dev.kvlab.store.internal.ha.EtcdClient}); see docs/store-ha.md.
 */
package dev.kvlab.store.internal.ha;
