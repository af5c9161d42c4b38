package dev.kvlab.store.api.server;

import java.time.Duration;
import java.util.function.LongConsumer;

/**
 * The high availability of a master ({@code kvlab store master --ha etcd://HOST:PORT --name NAME}): it joins the masters
 * of {@code etcd} (which names the cluster: {@code etcd://HOST:PORT[,HOST:PORT...][/CLUSTER]}) as {@code name}; one
 * leads, on an etcd lease of {@code lease}, and writes every metadata change to the oplog; the others apply it and
 * stand by. Clients reach the leader at {@code advertise} (null: the address the master listens on).
 *
 * @param snapshotEntries  the leader writes a snapshot after this many oplog entries (at least twice its objects)
 * @param snapshotInterval ... or after this long, whichever comes first
 * @param lagMicros        hears, for every oplog batch a standby applies, how long after its first entry's append (µs); or null
 */
public record HaLaunch(
        String etcd,
        String name,
        String advertise,
        Duration lease,
        long snapshotEntries,
        Duration snapshotInterval,
        LongConsumer lagMicros) {

    /** The default lease: a failover takes about this long (the old leader's lease must run out first). */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(3);

    public HaLaunch {
        if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}"))
            throw new IllegalArgumentException("--name must be 1-64 of A-Z a-z 0-9 . _ -, got '" + name + "'");
        if (lease.toSeconds() < 2 || lease.toNanos() % 1_000_000_000L != 0)
            throw new IllegalArgumentException(
                    "--ha-lease must be whole seconds, at least 2s (etcd's leases are in seconds), got " + lease);
        if (snapshotEntries < 1) throw new IllegalArgumentException("snapshot entries must be >= 1");
    }

    public static HaLaunch of(String etcd, String name) {
        return new HaLaunch(etcd, name, null, DEFAULT_LEASE, 100_000, Duration.ofMinutes(10), null);
    }

    public HaLaunch withAdvertise(String v) {
        return new HaLaunch(etcd, name, v, lease, snapshotEntries, snapshotInterval, lagMicros);
    }

    public HaLaunch withLease(Duration v) {
        return new HaLaunch(etcd, name, advertise, v, snapshotEntries, snapshotInterval, lagMicros);
    }

    public HaLaunch withSnapshots(long entries, Duration interval) {
        return new HaLaunch(etcd, name, advertise, lease, entries, interval, lagMicros);
    }

    public HaLaunch withLagListener(LongConsumer v) {
        return new HaLaunch(etcd, name, advertise, lease, snapshotEntries, snapshotInterval, v);
    }
}
